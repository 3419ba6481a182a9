//! Offline snapshots: cluster state read from files instead of an API server
//! (`--snapshot PATH`).
//!
//! PATH is a JSON or YAML file (one object, a `List` as `kubectl get -o
//! json|yaml` prints it, multi-document YAML, concatenated JSON documents), a
//! directory of such files (every `.json`, `.yaml` and `.yml` file in it,
//! recursively, in sorted order), or `-` for standard input. Events from both
//! Event APIs become the snapshot's events; everything else is an object.
//!
//! Two promises of the product hold here, before any object exists: Secret
//! and ConfigMap data is dropped as it is read, so nothing downstream can
//! print it; and "now" is the newest timestamp in the snapshot (unless given),
//! so the same snapshot always gives the same answer.
//!
//! Only [`read_sources`] touches the filesystem or stdin; parsing and
//! building the snapshot are pure.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::Value;

use super::builder::{SnapshotBuilder, redact};
use super::local;
use crate::escape::escape;
use crate::model::{Event, Incomplete, Object, Snapshot, parse_time};

/// What `kubectl get -o yaml` users are told a snapshot should be.
const SNAPSHOT_HINT: &str = "a snapshot is what `kubectl get -o yaml` or `-o json` prints, \
     e.g. `kubectl get deploy,rs,pods,events -o yaml > snapshot.yaml`";

/// The text of one input file and the name to show for it in messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The file's path as the user would recognise it, or `<stdin>`.
    pub origin: String,
    pub text: String,
}

impl SourceText {
    pub fn new(origin: impl Into<String>, text: impl Into<String>) -> SourceText {
        SourceText {
            origin: origin.into(),
            text: text.into(),
        }
    }
}

/// Why a snapshot could not be read. Each message says what went wrong in
/// the user's terms and, after `hint:`, what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "snapshot {path} does not exist\nhint: pass a file or directory of `kubectl get -o yaml` output, or `-` to read standard input"
    )]
    NotFound { path: String },

    #[error("cannot read snapshot {path}: {cause}")]
    Read { path: String, cause: String },

    #[error("{origin} is not valid {format}: {message}\nhint: {SNAPSHOT_HINT}")]
    Syntax {
        origin: String,
        format: &'static str,
        message: String,
        /// The line the parser stopped at, 1-based, when it said.
        line: Option<usize>,
    },

    #[error(
        "{origin}, {place}: not a Kubernetes object: {problem}\nhint: every document needs apiVersion, kind and metadata.name; {SNAPSHOT_HINT}"
    )]
    NotAnObject {
        origin: String,
        /// `document 2` or `document 1, item 5`, counting from 1.
        place: Place,
        problem: String,
    },

    #[error(
        "{origin}, line {line}: nested more than {MAX_NESTING} levels deep, which no Kubernetes object is; refused unread\nhint: {SNAPSHOT_HINT}"
    )]
    TooDeep { origin: String, line: usize },

    #[error(
        "no .json, .yaml or .yml files in directory {dir}\nhint: write one with `kubectl get deploy,rs,pods,events -o yaml > {dir}/snapshot.yaml`"
    )]
    NoFiles { dir: String },

    #[error(
        "no .json, .yaml or .yml files in directory {dir} itself, only in its subdirectories\nhint: -R (--recursive) reads the subdirectories too, as in kubectl"
    )]
    OnlyDeeper { dir: String },

    #[error(
        "{origin} is a capture cut short: its header counts {expected} documents after it, and {found} are there\nhint: it was not written whole (its size limit, a full disk, a copy cut off): capture again, or delete the header's `documents:` line to replay what is left"
    )]
    CutShort {
        origin: String,
        expected: usize,
        found: usize,
    },

    #[error("no Kubernetes objects in {what}{}\nhint: {SNAPSHOT_HINT}", only_events(.events))]
    Empty { what: String, events: usize },
}

fn only_events(events: &usize) -> String {
    match *events {
        0 => String::new(),
        1 => " (only 1 Event)".into(),
        n => format!(" (only {n} Events)"),
    }
}

/// Where a document sits in its file, counting from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub document: usize,
    /// The index in a `List`'s `items`, when the document is a list.
    pub item: Option<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "document {}", self.document)?;
        if let Some(item) = self.item {
            write!(f, ", item {item}")?;
        }
        Ok(())
    }
}

/// Reads the snapshot at `path` (a file, a directory or `-` for stdin). With
/// `now` unset, "now" is the newest timestamp in the snapshot.
pub fn load_snapshot(path: &str, now: Option<Timestamp>, limit: u64) -> anyhow::Result<Snapshot> {
    let sources = read_sources(path, true, limit)?;
    let mut snapshot = build_snapshot(&sources, now)?;
    snapshot.incomplete.extend(dump_gaps(&sources));
    Ok(snapshot)
}

/// What a `kubectl cluster-info dump --output-directory` holds of each
/// namespace: these lists, and `nodes.json` at its top.
const DUMPED: &[&str] = &[
    "events.json",
    "replication-controllers.json",
    "services.json",
    "daemonsets.json",
    "deployments.json",
    "replicasets.json",
    "pods.json",
];

/// The kinds a namespace of such a dump lacks, which an answer may need.
const NOT_DUMPED: &[&str] = &[
    "statefulsets.apps",
    "jobs.batch",
    "cronjobs.batch",
    "persistentvolumeclaims",
    "endpointslices.discovery.k8s.io",
    "custom resources",
];

/// A directory laid out by `kubectl cluster-info dump --output-directory`
/// (`nodes.json`, and a directory per namespace of the lists in
/// [`DUMPED`]) lacks most kinds: each namespace's are gaps, so that an
/// answer from it is never an all-clear.
fn dump_gaps(sources: &[SourceText]) -> Vec<Incomplete> {
    let is_dump = sources.iter().any(|s| s.origin.ends_with("/nodes.json"))
        && sources.iter().any(|s| s.origin.ends_with("/pods.json"));
    if !is_dump {
        return Vec::new();
    }
    let mut namespaces: Vec<&str> = sources
        .iter()
        .filter_map(|s| {
            let (dir, file) = s.origin.rsplit_once('/')?;
            DUMPED.contains(&file).then(|| dir.rsplit('/').next())?
        })
        .collect();
    namespaces.sort();
    namespaces.dedup();
    namespaces
        .into_iter()
        .flat_map(|ns| {
            NOT_DUMPED.iter().map(move |kind| Incomplete {
                resource: (*kind).to_string(),
                namespace: Some(ns.to_string()),
                error: "not in a kubectl cluster-info dump".into(),
            })
        })
        .collect()
}

/// The only I/O of this module: the text of every input file behind `path`.
/// A directory yields its `.json`, `.yaml` and `.yml` files in sorted
/// order, with `recursive` those of its subdirectories too (a snapshot
/// always; manifests with `-R`, as kubectl); symlinked files are followed,
/// symlinked directories are not (no cycles). At most `limit` bytes in
/// all, and only regular files or standard input (`-`).
pub fn read_sources(
    path: &str,
    recursive: bool,
    limit: u64,
) -> Result<Vec<SourceText>, SnapshotError> {
    if path == "-" {
        let bytes = local::read_bounded(io::stdin().lock(), limit)
            .map_err(|e| local_error("<stdin>", &e, false))?;
        return Ok(vec![SourceText::new("<stdin>", decode(&bytes, "<stdin>")?)]);
    }
    let shown = show_path(Path::new(path));
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => SnapshotError::NotFound {
            path: shown.clone(),
        },
        _ => read_error(&shown, &e),
    })?;
    let files = if meta.is_dir() {
        let mut files = Vec::new();
        let deeper = collect_files(Path::new(path), recursive, &mut files)?;
        if files.is_empty() {
            return Err(if deeper {
                SnapshotError::OnlyDeeper { dir: shown }
            } else {
                SnapshotError::NoFiles { dir: shown }
            });
        }
        files
    } else {
        vec![PathBuf::from(path)]
    };
    let mut left = limit;
    files
        .iter()
        .map(|file| {
            let origin = show_path(file);
            let bytes = local::read_file(file, left)
                .map_err(|e| local_error(&origin, &e, files.len() > 1))?;
            left -= bytes.len() as u64;
            let text = decode(&bytes, &origin)?;
            Ok(SourceText { origin, text })
        })
        .collect()
}

/// A local read refused or failed; past the size limit, how to raise it.
fn local_error(origin: &str, e: &local::LocalError, many: bool) -> SnapshotError {
    let mut cause = e.to_string();
    if matches!(e, local::LocalError::TooLarge(_)) {
        if many {
            cause.push_str(" with the files before it");
        }
        cause.push_str("\nhint: --snapshot-limit raises the limit, e.g. --snapshot-limit 1Gi");
    }
    SnapshotError::Read {
        path: origin.to_string(),
        cause,
    }
}

/// Collects the manifest files of `dir` (and with `recursive` of its
/// subdirectories); returns whether it left subdirectories unread.
fn collect_files(
    dir: &Path,
    recursive: bool,
    out: &mut Vec<PathBuf>,
) -> Result<bool, SnapshotError> {
    let listing_error = |e: io::Error| read_error(&show_path(dir), &e);
    let mut entries = std::fs::read_dir(dir)
        .map_err(listing_error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(listing_error)?;
    entries.sort();
    let mut skipped = false;
    for entry in entries {
        let meta =
            std::fs::symlink_metadata(&entry).map_err(|e| read_error(&show_path(&entry), &e))?;
        if meta.is_dir() {
            if recursive {
                collect_files(&entry, true, out)?;
            } else {
                skipped = true;
            }
        } else if is_manifest_name(&entry) && (meta.is_file() || entry.is_file()) {
            out.push(entry);
        }
    }
    Ok(skipped)
}

fn is_manifest_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "yaml", "yml"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// A path as shown in messages, escaped: file names can hold anything.
fn show_path(path: &Path) -> String {
    escape(&path.display().to_string()).into_owned()
}

fn read_error(path: &str, e: &io::Error) -> SnapshotError {
    let cause = match e.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    SnapshotError::Read {
        path: path.to_string(),
        cause,
    }
}

/// Turns file bytes into text: UTF-8, with or without a byte-order mark, or
/// UTF-16 with one (what PowerShell's `>` writes).
pub fn decode(bytes: &[u8], origin: &str) -> Result<String, SnapshotError> {
    let utf16 = |rest: &[u8], unit: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = rest
            .chunks(2)
            .map(|c| unit([c[0], c.get(1).copied().unwrap_or(0)]))
            .collect();
        String::from_utf16(&units).map_err(|_| SnapshotError::Read {
            path: origin.to_string(),
            cause: "it starts like UTF-16 text but is not".into(),
        })
    };
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => utf8(rest, origin),
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        _ => utf8(bytes, origin),
    }
}

fn utf8(bytes: &[u8], origin: &str) -> Result<String, SnapshotError> {
    String::from_utf8(bytes.to_vec()).map_err(|e| SnapshotError::Read {
        path: origin.to_string(),
        cause: format!(
            "it is not text (invalid UTF-8 at byte {}); a snapshot is JSON or YAML",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// Parses every document in `text`: JSON (one value or several
/// concatenated) or YAML (one document or several separated by `---`).
/// Empty documents come back as `Null` so that positions match the file.
pub fn parse_documents(text: &str, origin: &str) -> Result<Vec<Value>, SnapshotError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The parsers take quadratic time to refuse `[[[[...` (a minute for
    // 200 KB); one linear pass refuses it first.
    if let Some(line) = too_deep(text) {
        return Err(SnapshotError::TooDeep {
            origin: origin.to_string(),
            line,
        });
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let json = serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .collect::<Result<Vec<_>, _>>();
        return match json {
            Ok(docs) => Ok(docs),
            // `{kind: Pod, ...}` is YAML in flow style; only when that fails
            // too was it broken JSON.
            Err(json_err) => crate::yaml::parse(text).map_err(|_| SnapshotError::Syntax {
                origin: origin.to_string(),
                format: "JSON",
                line: Some(json_err.line()),
                message: json_err.to_string(),
            }),
        };
    }
    crate::yaml::parse(text).map_err(|e| SnapshotError::Syntax {
        origin: origin.to_string(),
        format: "YAML",
        line: e.line(),
        message: e.to_string(),
    })
}

/// How deep `[` and `{` may nest. Kubernetes objects, CRD schemas
/// included, stay far below; serde_json refuses deeper input anyway.
pub const MAX_NESTING: usize = 128;

/// The line where `text` opens more than [`MAX_NESTING`] brackets (`[`,
/// `{`) that are not closed, outside quoted strings and comments. A linear
/// scan, not a parse: brackets in plain YAML scalars count too, which real
/// input never stacks that deep.
fn too_deep(text: &str) -> Option<usize> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Double,
        Single,
        Comment,
    }
    let mut state = In::Code;
    let mut depth = 0usize;
    let mut line = 1;
    let mut prev = b'\n';
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'\n' {
            line += 1;
            if state == In::Comment {
                state = In::Code;
            }
        }
        match state {
            In::Comment => {}
            In::Double => match b {
                // Skip the escaped byte, but not a line break.
                b'\\' if bytes.clone().next() != Some(b'\n') => {
                    bytes.next();
                }
                b'"' => state = In::Code,
                _ => {}
            },
            // `''` inside is an escaped quote: leaving and entering again
            // gives the same answer.
            In::Single => {
                if b == b'\'' {
                    state = In::Code;
                }
            }
            In::Code => match b {
                // A quote starts a string only where a scalar can start,
                // not inside a word (`doesn't`, `name: a"` is a plain
                // scalar in YAML).
                b'"' | b'\''
                    if matches!(
                        prev,
                        b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b':' | b'-' | b'\''
                    ) =>
                {
                    state = if b == b'"' { In::Double } else { In::Single }
                }
                b'#' if matches!(prev, b' ' | b'\t' | b'\n') => state = In::Comment,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some(line);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        prev = b;
    }
    None
}

/// Builds the snapshot from the texts of its files. Pure: the same texts
/// and `now` always give the same snapshot.
pub fn build_snapshot(
    sources: &[SourceText],
    now: Option<Timestamp>,
) -> Result<Snapshot, SnapshotError> {
    let mut objects = Vec::new();
    let mut events = Vec::new();
    let mut newest: Option<Timestamp> = None;
    let mut header: Option<crate::capture::Header> = None;
    for source in sources {
        let docs = parse_documents(&source.text, &source.origin)?;
        // A header's count of what follows it, and what followed it.
        let mut counted: Option<(usize, usize)> = None;
        for (i, doc) in docs.into_iter().enumerate() {
            for (item, mut value) in flatten(doc) {
                if is_empty(&value) {
                    continue;
                }
                let place = Place {
                    document: i + 1,
                    item,
                };
                let not_an_object = |problem: String| SnapshotError::NotAnObject {
                    origin: source.origin.clone(),
                    place,
                    problem,
                };
                // A capture's header: its instant, gaps and kinds.
                if crate::capture::is_header(&value) {
                    let parsed = crate::capture::parse_header(&value).map_err(not_an_object)?;
                    counted = parsed.documents.map(|n| (n, 0));
                    header = Some(parsed);
                    continue;
                }
                if let Some((_, found)) = &mut counted {
                    *found += 1;
                }
                if let Some(problem) = identity_problem(&value) {
                    return Err(not_an_object(problem));
                }
                redact(&mut value);
                newest = newest.max(newest_time(&value));
                if is_event(&value) {
                    let event = Event::from_value(&value).ok_or_else(|| {
                        not_an_object(
                            "an Event without involvedObject or regarding, so it is about nothing"
                                .into(),
                        )
                    })?;
                    events.push(event);
                } else {
                    let object = Object::from_value(value)
                        .ok_or_else(|| not_an_object("it has no usable identity".into()))?;
                    objects.push(object);
                }
            }
        }
        if let Some((expected, found)) = counted
            && expected != found
        {
            return Err(SnapshotError::CutShort {
                origin: source.origin.clone(),
                expected,
                found,
            });
        }
    }
    if objects.is_empty() {
        return Err(SnapshotError::Empty {
            what: describe_sources(sources),
            events: events.len(),
        });
    }
    let mut builder = SnapshotBuilder::new();
    let Some(header) = header else {
        builder.objects(objects);
        builder.events(events);
        return Ok(builder.build(now.or(newest).unwrap_or(Timestamp::UNIX_EPOCH)));
    };
    // A capture replays as it was read: at its instant, with its gaps,
    // metadata-only objects as such, and its kinds as the server served
    // them.
    for obj in &mut objects {
        obj.metadata_only = header.metadata_only.contains(&obj.uid);
        if let Some(k) = header
            .kinds
            .iter()
            .find(|k| k.group == obj.group() && k.kind == obj.kind())
        {
            obj.status_subresource = Some(k.has_status);
        }
    }
    builder.objects(objects);
    builder.events(events);
    builder.gaps(&super::builder::Gaps {
        incomplete: header.incomplete,
        absent: header.absent,
    });
    let mut snapshot = builder.build(now.unwrap_or(header.captured_at));
    snapshot.kinds = header.kinds;
    Ok(snapshot)
}

fn describe_sources(sources: &[SourceText]) -> String {
    match sources {
        [] => "the snapshot".into(),
        [one] => one.origin.clone(),
        [first, rest @ ..] => format!("{} and {} more files", first.origin, rest.len()),
    }
}

/// A document, or the items of a list document (a `*List` or a JSON
/// array) with their 1-based index: the one reader of lists, for
/// `--snapshot` and `-f` alike.
/// Items of a typed list (`PodList` from the raw API) may lack apiVersion
/// and kind; they get them from the list.
pub fn flatten(doc: Value) -> Vec<(Option<usize>, Value)> {
    let items = match doc {
        Value::Array(items) => items,
        Value::Object(mut list) if is_list(&list) => {
            let mut items = match list.remove("items") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            };
            let kind = list.get("kind").and_then(Value::as_str).unwrap_or("List");
            let item_kind = kind.strip_suffix("List").unwrap_or_default();
            if !item_kind.is_empty() {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    item.entry("kind").or_insert_with(|| item_kind.into());
                    if let Some(v) = list.get("apiVersion") {
                        item.entry("apiVersion").or_insert_with(|| v.clone());
                    }
                }
            }
            items
        }
        doc => return vec![(None, doc)],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| (Some(i + 1), v))
        .collect()
}

/// `kind: List` or any `*List` with `items`, as `kubectl get` and the API
/// print collections.
fn is_list(map: &serde_json::Map<String, Value>) -> bool {
    map.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && matches!(map.get("items"), Some(Value::Array(_) | Value::Null))
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// What keeps `v` from being a Kubernetes object, in words.
fn identity_problem(v: &Value) -> Option<String> {
    let Some(map) = v.as_object() else {
        let what = match v {
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            _ => "nothing",
        };
        return Some(format!("it is {what}, not a mapping"));
    };
    let text = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let missing: Vec<&str> = [
        ("apiVersion", "/apiVersion"),
        ("kind", "/kind"),
        ("metadata.name", "/metadata/name"),
    ]
    .into_iter()
    .filter(|(_, p)| text(p).is_none())
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        return None;
    }
    let subject = match text("/kind") {
        Some(kind) => format!("this {}", escape(kind)),
        None if map.contains_key("items") => "this list".to_string(),
        None => "it".to_string(),
    };
    let missing = match missing.as_slice() {
        [.., last] if missing.len() > 1 => {
            format!("{} or {last}", missing[..missing.len() - 1].join(", "))
        }
        _ => missing.join(""),
    };
    Some(format!("{subject} has no {missing}"))
}

/// Whether `v` is a core/v1 or events.k8s.io Event.
fn is_event(v: &Value) -> bool {
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    v.get("kind").and_then(Value::as_str) == Some("Event")
        && (api_version == "v1" || api_version.starts_with("events.k8s.io/"))
}

/// Where timestamps live, as paths in which `*` is every element of a list
/// (or every value of a mapping).
const TIME_PATHS: &[&str] = &[
    "metadata/creationTimestamp",
    "metadata/deletionTimestamp",
    "metadata/managedFields/*/time",
    "status/conditions/*/lastTransitionTime",
    "status/conditions/*/lastUpdateTime",
    "status/conditions/*/lastProbeTime",
    "status/conditions/*/lastHeartbeatTime",
    "status/startTime",
    "status/completionTime",
    "status/lastScheduleTime",
    "status/lastSuccessfulTime",
    "status/containerStatuses/*/state/*/startedAt",
    "status/containerStatuses/*/state/*/finishedAt",
    "status/containerStatuses/*/lastState/*/startedAt",
    "status/containerStatuses/*/lastState/*/finishedAt",
    "status/initContainerStatuses/*/state/*/startedAt",
    "status/initContainerStatuses/*/state/*/finishedAt",
    "status/initContainerStatuses/*/lastState/*/startedAt",
    "status/initContainerStatuses/*/lastState/*/finishedAt",
    "status/ephemeralContainerStatuses/*/state/*/startedAt",
    "status/ephemeralContainerStatuses/*/state/*/finishedAt",
    // Events, in both APIs.
    "firstTimestamp",
    "lastTimestamp",
    "eventTime",
    "series/lastObservedTime",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
];

/// The newest timestamp anywhere in `v` that [`TIME_PATHS`] names.
fn newest_time(v: &Value) -> Option<Timestamp> {
    let mut newest = None;
    for path in TIME_PATHS {
        let segments: Vec<&str> = path.split('/').collect();
        visit(v, &segments, &mut |t| {
            newest = newest.max(parse_time(Some(t)))
        });
    }
    newest
}

fn visit<'v>(v: &'v Value, path: &[&str], found: &mut impl FnMut(&'v Value)) {
    let Some((first, rest)) = path.split_first() else {
        found(v);
        return;
    };
    match (*first, v) {
        ("*", Value::Array(items)) => items.iter().for_each(|i| visit(i, rest, found)),
        ("*", Value::Object(map)) => map.values().for_each(|i| visit(i, rest, found)),
        (key, Value::Object(map)) => {
            if let Some(next) = map.get(key) {
                visit(next, rest, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventSource;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn build(origin: &str, text: &str) -> Result<Snapshot, SnapshotError> {
        build_snapshot(&[SourceText::new(origin, text)], None)
    }

    fn kinds(snap: &Snapshot) -> Vec<String> {
        snap.objects()
            .iter()
            .map(|o| format!("{}/{}", o.kind(), o.name()))
            .collect()
    }

    /// What `kubectl get deploy,rs,pods,events -n shop -o yaml` prints for a
    /// Deployment stuck on an image that does not exist.
    const KUBECTL_GET_LIST: &str = r#"apiVersion: v1
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    annotations:
      deployment.kubernetes.io/revision: "2"
    creationTimestamp: "2026-01-10T10:00:00Z"
    generation: 2
    labels:
      app: web
    name: web
    namespace: shop
    resourceVersion: "4821"
    uid: 7d0c1f8e-3f0a-4a59-9d7e-1b1f8a2c0d01
  spec:
    progressDeadlineSeconds: 600
    replicas: 1
    revisionHistoryLimit: 10
    selector:
      matchLabels:
        app: web
    strategy:
      rollingUpdate:
        maxSurge: 25%
        maxUnavailable: 25%
      type: RollingUpdate
    template:
      metadata:
        labels:
          app: web
      spec:
        containers:
        - image: nginx:does-not-exist
          imagePullPolicy: IfNotPresent
          name: nginx
  status:
    availableReplicas: 1
    conditions:
    - lastTransitionTime: "2026-01-10T10:00:05Z"
      lastUpdateTime: "2026-01-10T10:00:05Z"
      message: Deployment has minimum availability.
      reason: MinimumReplicasAvailable
      status: "True"
      type: Available
    - lastTransitionTime: "2026-01-10T10:21:00Z"
      lastUpdateTime: "2026-01-10T10:21:00Z"
      message: ReplicaSet "web-7f9c6b5d4" has timed out progressing.
      reason: ProgressDeadlineExceeded
      status: "False"
      type: Progressing
    observedGeneration: 2
    readyReplicas: 1
    replicas: 2
    unavailableReplicas: 1
    updatedReplicas: 1
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    creationTimestamp: "2026-01-10T10:11:00Z"
    generation: 1
    labels:
      app: web
      pod-template-hash: 7f9c6b5d4
    name: web-7f9c6b5d4
    namespace: shop
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: Deployment
      name: web
      uid: 7d0c1f8e-3f0a-4a59-9d7e-1b1f8a2c0d01
    uid: 0b5e2c33-8c4e-4d3e-a1f2-55d0e9b7c102
  spec:
    replicas: 1
  status:
    fullyLabeledReplicas: 1
    observedGeneration: 1
    replicas: 1
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-01-10T10:11:00Z"
    generateName: web-7f9c6b5d4-
    labels:
      app: web
      pod-template-hash: 7f9c6b5d4
    name: web-7f9c6b5d4-x2k9p
    namespace: shop
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: web-7f9c6b5d4
      uid: 0b5e2c33-8c4e-4d3e-a1f2-55d0e9b7c102
    uid: 9a1d7e40-6b2f-4c8a-b3d9-0e4f1a2b3c03
  spec:
    containers:
    - image: nginx:does-not-exist
      name: nginx
    nodeName: node-1
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2026-01-10T10:11:00Z"
      status: "True"
      type: PodScheduled
    - lastProbeTime: null
      lastTransitionTime: "2026-01-10T10:11:00Z"
      message: 'containers with unready status: [nginx]'
      reason: ContainersNotReady
      status: "False"
      type: Ready
    containerStatuses:
    - image: nginx:does-not-exist
      imageID: ""
      lastState: {}
      name: nginx
      ready: false
      restartCount: 0
      started: false
      state:
        waiting:
          message: Back-off pulling image "nginx:does-not-exist"
          reason: ImagePullBackOff
    phase: Pending
    startTime: "2026-01-10T10:11:00Z"
- apiVersion: v1
  count: 43
  eventTime: null
  firstTimestamp: "2026-01-10T10:11:02Z"
  involvedObject:
    apiVersion: v1
    fieldPath: spec.containers{nginx}
    kind: Pod
    name: web-7f9c6b5d4-x2k9p
    namespace: shop
    resourceVersion: "4702"
    uid: 9a1d7e40-6b2f-4c8a-b3d9-0e4f1a2b3c03
  kind: Event
  lastTimestamp: "2026-01-10T10:24:30Z"
  message: Back-off pulling image "nginx:does-not-exist"
  metadata:
    creationTimestamp: "2026-01-10T10:11:02Z"
    name: web-7f9c6b5d4-x2k9p.181a2b3c4d5e6f70
    namespace: shop
    resourceVersion: "4830"
    uid: 3c4d5e6f-7081-4a2b-9c3d-4e5f60718293
  reason: BackOff
  reportingComponent: kubelet
  reportingInstance: node-1
  source:
    component: kubelet
    host: node-1
  type: Normal
- apiVersion: v1
  count: 1
  eventTime: null
  firstTimestamp: "2026-01-10T10:11:00Z"
  involvedObject:
    apiVersion: apps/v1
    kind: ReplicaSet
    name: web-7f9c6b5d4
    namespace: shop
    resourceVersion: "4690"
    uid: 0b5e2c33-8c4e-4d3e-a1f2-55d0e9b7c102
  kind: Event
  lastTimestamp: "2026-01-10T10:11:00Z"
  message: 'Created pod: web-7f9c6b5d4-x2k9p'
  metadata:
    creationTimestamp: "2026-01-10T10:11:00Z"
    name: web-7f9c6b5d4.181a2b3c4d000001
    namespace: shop
    resourceVersion: "4691"
    uid: 5e6f7081-92a3-4b4c-8d5e-6f7081929304
  reason: SuccessfulCreate
  reportingComponent: replicaset-controller
  source:
    component: replicaset-controller
  type: Normal
kind: List
metadata:
  resourceVersion: ""
"#;

    #[test]
    fn reads_a_kubectl_get_list() {
        let snap = build("snapshot.yaml", KUBECTL_GET_LIST).unwrap();
        assert_eq!(
            kinds(&snap),
            [
                "Deployment/web",
                "ReplicaSet/web-7f9c6b5d4",
                "Pod/web-7f9c6b5d4-x2k9p"
            ]
        );
        let pod = snap.get("9a1d7e40-6b2f-4c8a-b3d9-0e4f1a2b3c03").unwrap();
        assert_eq!(pod.controller().unwrap().name, "web-7f9c6b5d4");
        assert_eq!(snap.events.len(), 2);
        let backoff: Vec<_> = snap.events_for(&pod.uid).collect();
        assert_eq!(backoff.len(), 1);
        assert_eq!(backoff[0].reason, "BackOff");
        assert_eq!(backoff[0].count, 43);
        // The newest timestamp is the BackOff event's lastTimestamp.
        assert_eq!(snap.now, t("2026-01-10T10:24:30Z"));
        assert!(snap.incomplete.is_empty());
    }

    #[test]
    fn the_same_list_as_json_gives_the_same_snapshot() {
        let yaml: Value = serde_yaml_ng::from_str(KUBECTL_GET_LIST).unwrap();
        let json = serde_json::to_string_pretty(&yaml).unwrap();
        let from_json = build("snapshot.json", &json).unwrap();
        let from_yaml = build("snapshot.yaml", KUBECTL_GET_LIST).unwrap();
        assert_eq!(kinds(&from_json), kinds(&from_yaml));
        assert_eq!(from_json.events, from_yaml.events);
        assert_eq!(from_json.now, from_yaml.now);
        let deploy = from_json
            .find("apps", "Deployment", Some("shop"), "web")
            .unwrap();
        assert_eq!(
            deploy.condition("Progressing").unwrap().reason,
            "ProgressDeadlineExceeded"
        );
    }

    #[test]
    fn reads_multi_document_yaml_and_skips_empty_documents() {
        let text = "# deployed by hand\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n---\n{}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n  namespace: shop\n...\n";
        let snap = build("all.yaml", text).unwrap();
        assert_eq!(kinds(&snap), ["Namespace/shop", "ServiceAccount/web"]);
        assert_eq!(snap.objects()[1].namespace(), Some("shop"));
    }

    #[test]
    fn reads_concatenated_json_and_top_level_arrays() {
        let text = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}
[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"c"}}]"#;
        let snap = build("ns.json", text).unwrap();
        assert_eq!(kinds(&snap), ["Namespace/a", "Namespace/b", "Namespace/c"]);
        // JSON whose first line looks like YAML flow style is still YAML.
        let flow = "{apiVersion: v1, kind: Namespace, metadata: {name: d}}";
        assert_eq!(kinds(&build("ns.yaml", flow).unwrap()), ["Namespace/d"]);
    }

    #[test]
    fn typed_lists_lend_their_kind_to_items() {
        // `kubectl get --raw /api/v1/namespaces/shop/pods` items carry no
        // apiVersion or kind.
        let text = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},
            "items":[{"metadata":{"name":"p1","namespace":"shop","uid":"u1"}},
                     {"metadata":{"name":"p2","namespace":"shop","uid":"u2"}}]}"#;
        let snap = build("pods.json", text).unwrap();
        assert_eq!(kinds(&snap), ["Pod/p1", "Pod/p2"]);
        assert_eq!(snap.objects()[0].id.api_version, "v1");
        // An empty list is no objects, and says so.
        let empty = r#"{"kind":"List","apiVersion":"v1","items":null}"#;
        assert!(matches!(
            build("e.json", empty),
            Err(SnapshotError::Empty { events: 0, .. })
        ));
    }

    #[test]
    fn stdin_goes_through_the_same_pure_path() {
        let snap = build_snapshot(&[SourceText::new("<stdin>", KUBECTL_GET_LIST)], None).unwrap();
        assert_eq!(snap.objects().len(), 3);
        let err = build("<stdin>", "apiVersion: v1\nkind: Pod\nmetadata: {}\n").unwrap_err();
        assert!(
            err.to_string().starts_with("<stdin>, document 1: "),
            "{err}"
        );
    }

    #[test]
    fn secret_and_configmap_data_never_enter_the_snapshot() {
        let text = r#"apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: shop
  uid: s1
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"aHVudGVyMg=="}}'
    team: payments
data:
  password: aHVudGVyMg==
stringData:
  token: hunter2
type: Opaque
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: shop
  uid: c1
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"db-url":"postgres://admin:hunter2@db"}}'
data:
  db-url: postgres://admin:hunter2@db
binaryData:
  blob: aHVudGVyMg==
"#;
        let snap = build("secrets.yaml", text).unwrap();
        assert_eq!(snap.objects().len(), 2);
        for obj in snap.objects() {
            let all = obj.raw.to_string();
            assert!(!all.contains("hunter2"), "{all}");
            assert!(!all.contains("aHVudGVyMg"), "{all}");
            assert!(obj.metadata_only, "{} should be metadata only", obj.name());
            for key in ["/data", "/stringData", "/binaryData"] {
                assert!(obj.at(key).is_none());
            }
        }
        let secret = snap.get("s1").unwrap();
        assert_eq!(secret.str("/metadata/annotations/team"), Some("payments"));
        assert_eq!(secret.str("/type"), Some("Opaque"));
    }

    #[test]
    fn secrets_inside_lists_lose_their_data_too() {
        let text = r#"{"apiVersion":"v1","kind":"SecretList","items":[
            {"metadata":{"name":"tls","namespace":"shop"},"data":{"tls.key":"c2VjcmV0"}}]}"#;
        let snap = build("s.json", text).unwrap();
        assert!(!snap.objects()[0].raw.to_string().contains("c2VjcmV0"));
    }

    #[test]
    fn events_from_both_apis_count_once() {
        let core = r#"{"apiVersion":"v1","kind":"Event",
            "metadata":{"name":"web-1.17f","namespace":"shop","uid":"ev-1","creationTimestamp":"2026-01-10T11:00:00Z"},
            "involvedObject":{"kind":"Pod","name":"web-1","namespace":"shop","uid":"pod-1"},
            "reason":"FailedScheduling","message":"0/2 nodes are available","type":"Warning",
            "count":3,"firstTimestamp":"2026-01-10T11:00:00Z","lastTimestamp":"2026-01-10T11:04:00Z"}"#;
        let v1 = r#"{"apiVersion":"events.k8s.io/v1","kind":"Event",
            "metadata":{"name":"web-1.17f","namespace":"shop","uid":"ev-1","creationTimestamp":"2026-01-10T11:00:00Z"},
            "regarding":{"kind":"Pod","name":"web-1","namespace":"shop","uid":"pod-1"},
            "reason":"FailedScheduling","note":"0/2 nodes are available","type":"Warning",
            "eventTime":null,"deprecatedCount":3,
            "deprecatedFirstTimestamp":"2026-01-10T11:00:00Z","deprecatedLastTimestamp":"2026-01-10T11:04:00Z"}"#;
        let v1_only = r#"{"apiVersion":"events.k8s.io/v1","kind":"Event",
            "metadata":{"name":"web-1.180","namespace":"shop","uid":"ev-2"},
            "regarding":{"kind":"Pod","name":"web-1","namespace":"shop","uid":"pod-1"},
            "reason":"Scheduled","note":"assigned","type":"Normal",
            "eventTime":"2026-01-10T11:06:00.000000Z","reportingController":"default-scheduler",
            "series":{"count":2,"lastObservedTime":"2026-01-10T11:07:30.000000Z"}}"#;
        let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop","uid":"pod-1",
            "creationTimestamp":"2026-01-10T10:59:00Z"}}"#;
        let sources = [
            SourceText::new("events-v1.json", format!("{v1}\n{v1_only}")),
            SourceText::new("core.json", core),
            SourceText::new("pod.json", pod),
        ];
        let snap = build_snapshot(&sources, None).unwrap();
        assert_eq!(snap.events.len(), 2);
        let ev1: Vec<_> = snap.events.iter().filter(|e| e.uid == "ev-1").collect();
        assert_eq!(ev1.len(), 1);
        assert_eq!(ev1[0].source, EventSource::CoreV1);
        assert_eq!(snap.events_for("pod-1").count(), 2);
        // series.lastObservedTime of the events.k8s.io event is the newest.
        assert_eq!(snap.now, t("2026-01-10T11:07:30Z"));
        assert_eq!(kinds(&snap), ["Pod/web-1"]);
    }

    #[test]
    fn now_is_the_newest_timestamp_anywhere_it_can_be() {
        let base = |extra: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","creationTimestamp":"2026-01-01T00:00:00Z"}},{extra}}}"#
            )
        };
        let cases = [
            (
                r#""status":{"startTime":"2026-01-02T00:00:00Z"}"#,
                "2026-01-02T00:00:00Z",
            ),
            (
                r#""status":{"conditions":[{"type":"Ready","lastTransitionTime":"2026-01-01T05:00:00Z","lastProbeTime":"2026-01-03T00:00:00Z"}]}"#,
                "2026-01-03T00:00:00Z",
            ),
            (
                r#""status":{"conditions":[{"type":"Ready","lastHeartbeatTime":"2026-01-04T00:00:00Z","lastUpdateTime":"2026-01-03T00:00:00Z"}]}"#,
                "2026-01-04T00:00:00Z",
            ),
            (
                r#""status":{"containerStatuses":[{"name":"a","state":{"running":{"startedAt":"2026-01-05T00:00:00Z"}},
                    "lastState":{"terminated":{"startedAt":"2026-01-04T00:00:00Z","finishedAt":"2026-01-06T00:00:00Z"}}}]}"#,
                "2026-01-06T00:00:00Z",
            ),
            (
                r#""status":{"initContainerStatuses":[{"name":"i","state":{"terminated":{"finishedAt":"2026-01-07T00:00:00Z"}}}]}"#,
                "2026-01-07T00:00:00Z",
            ),
            (
                r#""metadata2":{},"status":{"phase":"Running"}"#,
                "2026-01-01T00:00:00Z",
            ),
        ];
        for (extra, want) in cases {
            let snap = build("p.json", &base(extra)).unwrap();
            assert_eq!(snap.now, t(want), "{extra}");
        }
        // deletionTimestamp and managedFields live in metadata.
        let meta = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
            "creationTimestamp":"2026-01-01T00:00:00Z","deletionTimestamp":"2026-01-08T00:00:00Z",
            "managedFields":[{"manager":"kubectl","time":"2026-01-09T00:00:00Z"}]}}"#;
        assert_eq!(
            build("p.json", meta).unwrap().now,
            t("2026-01-09T00:00:00Z")
        );
        // Timestamps elsewhere (say, in a spec) are not "now".
        let spec = r#"{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c",
            "creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"startTime":"2099-01-01T00:00:00Z"}}"#;
        assert_eq!(
            build("c.json", spec).unwrap().now,
            t("2026-01-01T00:00:00Z")
        );
    }

    #[test]
    fn now_can_be_given_and_defaults_to_the_epoch() {
        let given = t("2030-06-01T12:00:00Z");
        let snap =
            build_snapshot(&[SourceText::new("s.yaml", KUBECTL_GET_LIST)], Some(given)).unwrap();
        assert_eq!(snap.now, given);
        let timeless = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";
        assert_eq!(
            build("ns.yaml", timeless).unwrap().now,
            Timestamp::UNIX_EPOCH
        );
    }

    #[test]
    fn the_same_snapshot_gives_the_same_answer() {
        let a = build("s.yaml", KUBECTL_GET_LIST).unwrap();
        let b = build("s.yaml", KUBECTL_GET_LIST).unwrap();
        assert_eq!(a.now, b.now);
        assert_eq!(kinds(&a), kinds(&b));
        assert_eq!(a.events, b.events);
    }

    #[test]
    fn syntax_errors_name_the_file_and_the_line() {
        let err = build(
            "broken.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n",
        )
        .unwrap_err();
        let SnapshotError::Syntax { format, line, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*format, "YAML");
        assert!(line.is_some());
        let msg = err.to_string();
        assert!(msg.starts_with("broken.yaml is not valid YAML: "), "{msg}");
        assert!(msg.contains("line"), "{msg}");
        assert!(
            msg.contains("hint: a snapshot is what `kubectl get -o yaml`"),
            "{msg}"
        );

        let err = build(
            "broken.json",
            "{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\"\n \"metadata\": {}}",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(
                err,
                SnapshotError::Syntax {
                    format: "JSON",
                    line: Some(3),
                    ..
                }
            ),
            "{msg}"
        );
        assert!(msg.starts_with("broken.json is not valid JSON: "), "{msg}");
        assert!(msg.contains("line 3"), "{msg}");
    }

    #[test]
    fn documents_that_are_not_objects_are_named() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n---\nreplicaCount: 3\nimage:\n  tag: latest\n";
        let err = build("values.yaml", text).unwrap_err();
        assert_eq!(
            err.to_string().lines().next().unwrap(),
            "values.yaml, document 2: not a Kubernetes object: it has no apiVersion, kind or metadata.name"
        );
        assert!(err.to_string().contains("kubectl get -o yaml"));

        let kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n";
        let err = build("kustomization.yaml", kustomization).unwrap_err();
        assert!(
            err.to_string().contains(
                "document 1: not a Kubernetes object: this Kustomization has no metadata.name"
            ),
            "{err}"
        );

        let list = r#"{"apiVersion":"v1","kind":"List","items":[
            {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}, "oops"]}"#;
        let err = build("l.json", list).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "l.json, document 1, item 2: not a Kubernetes object: it is a string, not a mapping"
            ),
            "{err}"
        );
        let hostile = "apiVersion: v1\nkind: \"Evil\\e[2J\"\nmetadata: {}\n";
        let err = build("h.yaml", hostile).unwrap_err();
        assert!(
            err.to_string()
                .contains(r"this Evil\x1b[2J has no metadata.name"),
            "{err}"
        );
    }

    #[test]
    fn a_snapshot_without_objects_is_an_error() {
        for text in [
            "",
            "---\n",
            "# nothing here\n",
            "apiVersion: v1\nkind: List\nitems: []\n",
        ] {
            let err = build("empty.yaml", text).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("no Kubernetes objects in empty.yaml\nhint: "),
                "{text:?}: {err}"
            );
        }
        let only_event = r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","uid":"e"},
            "involvedObject":{"uid":"x"},"reason":"Pulled"}"#;
        let err = build("ev.json", only_event).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("no Kubernetes objects in ev.json (only 1 Event)"),
            "{err}"
        );
        let err = build_snapshot(
            &[
                SourceText::new("a.yaml", ""),
                SourceText::new("b.yaml", ""),
                SourceText::new("c.yaml", ""),
            ],
            None,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("no Kubernetes objects in a.yaml and 2 more files"),
            "{err}"
        );
    }

    #[test]
    fn deep_nesting_is_refused_at_once() {
        let n = 100_000;
        let deep_json = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let deep_yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec: {}",
            "{a: ".repeat(n)
        );
        let deep_objects = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        for (text, line) in [(&deep_json, 1), (&deep_yaml, 5), (&deep_objects, 1)] {
            let started = std::time::Instant::now();
            let err = parse_documents(text, "deep.yaml").unwrap_err();
            assert!(
                started.elapsed() < std::time::Duration::from_secs(1),
                "{:?}",
                started.elapsed()
            );
            assert!(
                matches!(err, SnapshotError::TooDeep { line: l, .. } if l == line),
                "{err}"
            );
            assert!(err.to_string().starts_with(&format!(
                "deep.yaml, line {line}: nested more than 128 levels deep"
            )));
        }
    }

    #[test]
    fn nesting_just_below_the_limit_and_brackets_in_strings_are_fine() {
        let ok = format!("{}{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert_eq!(too_deep(&ok), None);
        assert_eq!(too_deep(&format!("[{ok}]")), Some(1));
        let many = "[".repeat(500);
        for text in [
            format!("{{\"message\": \"{many}\", \"b\": \"\\\"{many}\"}}"),
            format!("message: '{many}'\nother: 'it''s {many}'\n"),
            format!("a: 1 # {many}\nb: \"x\\\n{many}\"\n"),
            format!("note: don't\nx: '{many}'\n"),
        ] {
            assert_eq!(too_deep(&text), None, "{text}");
        }
        assert_eq!(too_deep(&format!("a: \"x\"\nb: c\nd: {many}")), Some(3));
        // A quote inside a plain scalar opens no string: what follows counts.
        assert_eq!(too_deep(&format!("name: a\"\nspec: {many}")), Some(2));
        assert_eq!(too_deep(&format!("name: it's\"x\nspec: {many}")), Some(2));
    }

    #[test]
    fn decodes_byte_order_marks_and_utf16() {
        let yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n";
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice(yaml.as_bytes());
        assert_eq!(decode(&bom, "x").unwrap(), yaml);
        let mut le = vec![0xFF, 0xFE];
        le.extend(yaml.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(decode(&le, "x").unwrap(), yaml);
        let mut be = vec![0xFE, 0xFF];
        be.extend(yaml.encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(decode(&be, "x").unwrap(), yaml);
        let err = decode(&[0x1f, 0x8b, 0x08, 0x00, 0xff], "snap.yaml.gz").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot read snapshot snap.yaml.gz: it is not text"),
            "{err}"
        );
        // A BOM left in a string is not a JSON syntax error either.
        let json =
            "\u{feff}{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"n\"}}";
        assert_eq!(parse_documents(json, "x").unwrap().len(), 1);
    }

    #[test]
    fn parse_documents_keeps_positions() {
        let docs = parse_documents("a: 1\n---\n---\nb: 2\n", "x.yaml").unwrap();
        assert_eq!(docs.len(), 3);
        assert!(docs[1].is_null());
        assert_eq!(docs[2]["b"], 2);
    }

    #[test]
    fn a_cluster_info_dump_names_the_kinds_it_lacks_per_namespace() {
        let dump = |files: &[&str]| -> Vec<SourceText> {
            files
                .iter()
                .map(|f| SourceText::new(format!("/tmp/dump/{f}"), ""))
                .collect()
        };
        let gaps = dump_gaps(&dump(&[
            "nodes.json",
            "shop/pods.json",
            "shop/events.json",
            "web/pods.json",
        ]));
        assert_eq!(gaps.len(), 2 * NOT_DUMPED.len());
        assert!(gaps.iter().any(|g| g.resource == "statefulsets.apps"
            && g.namespace.as_deref() == Some("shop")
            && g.error == "not in a kubectl cluster-info dump"));
        // Any other directory of lists is no dump.
        assert!(dump_gaps(&dump(&["shop/pods.json", "shop/deployments.json"])).is_empty());
    }

    #[test]
    fn a_capture_replays_at_its_instant_with_its_gaps_and_metadata_only_objects() {
        let text = r#"---
apiVersion: reconcile.kubectl.dev/v1alpha1
kind: Capture
metadata: {name: capture}
capturedAt: "2026-12-02T05:00:00Z"
tool: kubectl-reconcile 0.1.0
command: kubectl reconcile -n shop snapshot
incomplete: [{resource: secrets, namespace: shop, error: forbidden}]
absent: []
metadataOnly: [p1]
kinds: [{group: "", version: v1, kind: Pod, plural: pods, shortNames: [po], namespaced: true, hasStatus: true}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop, uid: p1, creationTimestamp: "2026-12-02T06:00:00Z"}
"#;
        let snap = build_snapshot(&[SourceText::new("capture.yaml", text)], None).unwrap();
        assert_eq!(
            snap.now.to_string(),
            "2026-12-02T05:00:00Z",
            "the capture's instant, not the newest time"
        );
        assert_eq!(snap.incomplete.len(), 1);
        assert_eq!(snap.incomplete[0].resource, "secrets");
        let pod = &snap.objects()[0];
        assert!(pod.metadata_only);
        assert_eq!(pod.status_subresource, Some(true));
        assert_eq!(snap.kinds[0].short_names, ["po"]);
        let broken = text.replace("capturedAt: \"2026-12-02T05:00:00Z\"", "capturedAt: soon");
        let err = build_snapshot(&[SourceText::new("capture.yaml", &broken)], None).unwrap_err();
        assert!(err.to_string().contains("Capture header"), "{err}");
        // Its count of documents holds, or it was cut short.
        let counted = text.replace("metadataOnly: [p1]", "metadataOnly: [p1]\ndocuments: 1");
        assert!(build_snapshot(&[SourceText::new("capture.yaml", &counted)], None).is_ok());
        let cut = text.replace("metadataOnly: [p1]", "metadataOnly: [p1]\ndocuments: 2");
        let err = build_snapshot(&[SourceText::new("capture.yaml", &cut)], None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("capture.yaml is a capture cut short: its header counts 2 documents after it, and 1 are there"),
            "{err}"
        );
    }

    mod files {
        use super::*;
        use std::fs;

        fn write(dir: &Path, rel: &str, text: &str) {
            let path = dir.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }

        fn ns(name: &str) -> String {
            format!(
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  creationTimestamp: \"2026-01-0{}T00:00:00Z\"\n",
                name.len()
            )
        }

        #[test]
        fn a_directory_is_read_recursively_in_sorted_order() {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            write(d, "b.yaml", &ns("bb"));
            write(d, "a/z.yml", &ns("aaz"));
            write(
                d,
                "a/c.JSON",
                r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ac"}}"#,
            );
            write(d, "README.md", "# not a manifest\napiVersion: nope\n");
            write(d, "notes.txt", "kind: nothing");
            write(d, "kustomize/.keep", "");
            write(d, "events.yaml", KUBECTL_GET_LIST);

            let names = |recursive: bool| -> Vec<String> {
                read_sources(
                    d.to_str().unwrap(),
                    recursive,
                    crate::source::local::MAX_SNAPSHOT_BYTES,
                )
                .unwrap()
                .iter()
                .map(|s| {
                    s.origin
                        .strip_prefix(d.to_str().unwrap())
                        .unwrap()
                        .to_string()
                })
                .collect()
            };
            assert_eq!(
                names(true),
                ["/a/c.JSON", "/a/z.yml", "/b.yaml", "/events.yaml"]
            );
            // Without -R, as kubectl: the directory's own files only.
            assert_eq!(names(false), ["/b.yaml", "/events.yaml"]);
            let other = tempfile::tempdir().unwrap();
            write(other.path(), "deeper/z.yml", &ns("z"));
            let only_deeper = other.path().to_str().unwrap();
            let err = read_sources(only_deeper, false, crate::source::local::MAX_SNAPSHOT_BYTES)
                .unwrap_err();
            assert!(err.to_string().contains("-R (--recursive)"), "{err}");
            assert_eq!(
                read_sources(only_deeper, true, crate::source::local::MAX_SNAPSHOT_BYTES)
                    .unwrap()
                    .len(),
                1
            );

            let snap = load_snapshot(
                d.to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap();
            assert_eq!(
                kinds(&snap)[..3],
                ["Namespace/ac", "Namespace/aaz", "Namespace/bb"]
            );
            assert_eq!(snap.objects().len(), 6);
            assert_eq!(snap.events.len(), 2);
            assert_eq!(snap.now, t("2026-01-10T10:24:30Z"));
        }

        #[test]
        fn a_bad_file_in_a_directory_is_named() {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "good.yaml", &ns("ok"));
            write(dir.path(), "sub/bad.yaml", "kind: [unclosed\n");
            let err = load_snapshot(
                dir.path().to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap_err();
            let msg = err.to_string();
            let bad = dir.path().join("sub/bad.yaml");
            assert!(
                msg.starts_with(&format!("{} is not valid YAML", bad.display())),
                "{msg}"
            );
        }

        #[test]
        fn a_single_file_is_read_whatever_its_name() {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "snapshot.out", &ns("x"));
            let path = dir.path().join("snapshot.out");
            let snap = load_snapshot(
                path.to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap();
            assert_eq!(kinds(&snap), ["Namespace/x"]);
        }

        #[test]
        fn missing_paths_and_empty_directories_say_what_to_do() {
            let dir = tempfile::tempdir().unwrap();
            let missing = dir.path().join("nope.yaml");
            let err = load_snapshot(
                missing.to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "snapshot {} does not exist\nhint: pass a file or directory of `kubectl get -o yaml` output, or `-` to read standard input",
                    missing.display()
                )
            );
            write(dir.path(), "README.md", "nothing");
            let err = load_snapshot(
                dir.path().to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap_err();
            assert!(
                err.to_string().starts_with(&format!(
                    "no .json, .yaml or .yml files in directory {}",
                    dir.path().display()
                )),
                "{err}"
            );
        }

        #[cfg(unix)]
        #[test]
        fn symlinked_directories_are_not_followed() {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "real/ns.yaml", &ns("x"));
            std::os::unix::fs::symlink(dir.path(), dir.path().join("real/loop")).unwrap();
            std::os::unix::fs::symlink(
                dir.path().join("real/ns.yaml"),
                dir.path().join("link.yaml"),
            )
            .unwrap();
            let sources = read_sources(
                dir.path().to_str().unwrap(),
                true,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap();
            assert_eq!(sources.len(), 2, "{sources:?}");
            // The same object read twice is one object.
            let snap = load_snapshot(
                dir.path().to_str().unwrap(),
                None,
                crate::source::local::MAX_SNAPSHOT_BYTES,
            )
            .unwrap();
            assert_eq!(kinds(&snap), ["Namespace/x"]);
        }
    }
}
