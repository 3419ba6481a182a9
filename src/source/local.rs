//! Local files the user hands the tool (snapshots, `-f` manifests, health
//! rules, `-o jsonpath-file`), read with a bound: only regular files or
//! standard input, never more than a stated number of bytes. A FIFO with
//! no writer would block the command forever, and `/dev/zero` would grow
//! it to the memory limit.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// What a snapshot (all its files together) or a `-f` manifest set may
/// hold by default: parsed, a snapshot takes several times its size in
/// memory. `--snapshot-limit` raises it.
pub const MAX_SNAPSHOT_BYTES: u64 = 256 << 20;

/// What a health rules file, or a `-o` template file, may hold.
pub const MAX_SMALL_FILE_BYTES: u64 = 1 << 20;

/// Why a local input was not read.
#[derive(Debug)]
pub enum LocalError {
    /// A FIFO, a device or a socket: reading it may block or never end.
    NotRegular(&'static str),
    /// More than the limit, in bytes.
    TooLarge(u64),
    Io(io::Error),
}

impl fmt::Display for LocalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocalError::NotRegular(what) => {
                write!(f, "it is {what}, not a regular file; refused unread")
            }
            LocalError::TooLarge(limit) => {
                write!(f, "it is larger than {}; refused", show_size(*limit))
            }
            LocalError::Io(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                f.write_str("permission denied")
            }
            LocalError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// `256 MiB`, `1 MiB`, `512 KiB`, `100 bytes`.
pub fn show_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// `512Mi`, `1Gi`, `300M`, `4096`: a size as Kubernetes quantities write
/// it (binary and decimal suffixes), for `--snapshot-limit`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let factor: u64 = match unit {
        "" => 1,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        "k" | "K" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        _ => return Err(format!("{text:?} is not a size; use e.g. 512Mi or 1Gi")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{text:?} is not a size; use e.g. 512Mi or 1Gi"))
}

/// The bytes of the regular file at `path` (symlinks followed), at most
/// `limit` of them.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, LocalError> {
    let meta = std::fs::metadata(path).map_err(LocalError::Io)?;
    if !meta.is_file() {
        return Err(LocalError::NotRegular(kind_of(&meta)));
    }
    if meta.len() > limit {
        return Err(LocalError::TooLarge(limit));
    }
    // The file may grow between the look and the read (a log being
    // written): the read is bounded too.
    read_bounded(std::fs::File::open(path).map_err(LocalError::Io)?, limit)
}

/// At most `limit` bytes of `from` (standard input), else an error.
pub fn read_bounded(from: impl Read, limit: u64) -> Result<Vec<u8>, LocalError> {
    let mut bytes = Vec::new();
    from.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(LocalError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(LocalError::TooLarge(limit));
    }
    Ok(bytes)
}

/// The text of a small local file (health rules, a template), UTF-8.
pub fn read_small_text(path: &Path) -> Result<String, LocalError> {
    let bytes = read_file(path, MAX_SMALL_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|e| {
        LocalError::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (invalid at byte {})",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

#[cfg(unix)]
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    if meta.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Writes to `path` (created, or replaced; a directory gets a file of its
/// own, `name` in it) through `write`, whole or not at all: into a new
/// file beside it (readable by its owner only), put in its place once
/// `write` has finished, and removed if `write` fails. Returns where it
/// was written.
pub fn write_whole(
    path: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn io::Write) -> anyhow::Result<()>,
) -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context;
    let target = if path.is_dir() {
        path.join(name)
    } else {
        path.to_path_buf()
    };
    let cannot = || format!("cannot write {}", target.display());
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file = tempfile::NamedTempFile::new_in(dir).with_context(cannot)?;
    let mut out = io::BufWriter::new(file);
    write(&mut out)?;
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(cannot)?;
    file.persist(&target)
        .map_err(|e| e.error)
        .with_context(cannot)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_quantities() {
        assert_eq!(parse_size("512Mi"), Ok(512 << 20));
        assert_eq!(parse_size("1Gi"), Ok(1 << 30));
        assert_eq!(parse_size("300M"), Ok(300_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        for bad in [
            "",
            "Mi",
            "0",
            "1.5Gi",
            "1Zi",
            "-1",
            "99999999999999999999Ti",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(show_size(MAX_SNAPSHOT_BYTES), "256 MiB");
        assert_eq!(show_size(1 << 30), "1 GiB");
    }

    #[test]
    fn reads_are_bounded_and_only_of_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_file(&file, 5).unwrap(), b"12345");
        assert!(matches!(read_file(&file, 4), Err(LocalError::TooLarge(4))));
        assert!(matches!(
            read_bounded(&b"123456"[..], 5),
            Err(LocalError::TooLarge(5))
        ));
        assert!(matches!(
            read_file(dir.path(), 5),
            Err(LocalError::NotRegular("a directory"))
        ));
        #[cfg(unix)]
        assert!(matches!(
            read_file(Path::new("/dev/zero"), 5),
            Err(LocalError::NotRegular("a device"))
        ));
    }
}
