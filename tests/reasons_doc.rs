//! docs/reasons.md, the catalogue of `reason` values, is generated from the
//! verdict fixtures (YAML of real objects in tests/fixtures/verdict/): every
//! fixture is judged and its kind, verdict, reason and message become a row.
//! This test fails when the document is stale; `UPDATE_REASONS=1 cargo test
//! --test reasons_doc` rewrites it.

use std::collections::BTreeMap;
use std::path::Path;

use kubectl_reconcile::pipeline::{
    Event, FROM_KUBERNETES, Judged, Object, Reason, Snapshot, judge,
};
use serde::Deserialize;
use serde_json::Value;

/// The clock the verdict tests use for the fixtures.
const NOW: &str = "2026-11-29T22:30:00Z";

const HEAD: &str = "\
# Reasons

Every item of a report has a `verdict` and a `reason`: a stable CamelCase
word a script can match on (`jq '.items[] | select(.reason == \"ImagePullBackOff\")'`),
and a `message` that cites the evidence. The verdict says how things stand;
the reason says why.

The judge applies a fixed precedence (src/verdict/mod.rs), and the first
rule that speaks decides:

1. **Deletion**: a `deletionTimestamp` gives `Terminating` (`FinalizersPending`,
   `WaitingForDependents`, `Deleting`; for a namespace, what holds its content).
2. **Metadata only** (a type read as `PartialObjectMetadata`): `Converged`, `Exists`.
3. **Paused on purpose** (a paused Deployment, a suspended CronJob or Job):
   `Suspended`.
4. **Generation**: `metadata.generation` ahead of `status.observedGeneration`
   (for custom resources also of a condition's `observedGeneration`):
   `Progressing`, `ObservedGenerationLag`.
5. **Abnormal conditions**: `Stalled=True` gives `Failed` and
   `Reconciling=True` gives `Progressing`, with the **condition's own reason**
   (so custom resources report their controllers' words, e.g. Flux's
   `InstallFailed`), or `Stalled`/`Reconciling` when it has none.
6. **No status** where a controller should write one: `Unknown`, `NoStatus`.
7. **Per-kind rules** for the built-in kinds below.
8. **Shared conventions** of other kinds (docs/verdicts.md): a failure word in
   any status word field (`phase`, `state`, `…State`, `…Status`, one level
   down too) gives `Failed` with the word as the reason; `status.error` or
   `status.errors` gives `Failed`, `Error`; a run whose `Succeeded` is False
   gives `Failed` with the condition's reason; conditions nested per parent,
   ancestor, listener or ingress point speak for the object, named by their
   part; any condition that is False with a failure reason gives `Failed`
   with that reason; `Ready`, `Available`, `Healthy`, `Synced`, `Succeeded`,
   `Accepted`, `Programmed`: False by their reason, `True` is `Converged`
   with the condition's type as the reason; counts short of the spec give
   `Progressing`, `WaitingForReplicas`.
9. **Default**: an object with nothing to reconcile `Exists`; a built-in
   kind's status that no rule reads `Current`; a custom resource whose status
   no convention can read `NoHealthSignal` (`Converged` when its controller
   observed the current generation, else `Unknown`).

Two reasons come from outside the judge: `NotFound` (a target that does not
exist) and, in `tree --owners`, `OwnerGone` and `OwnerNotRead` for owners
that are gone or could not be read.

The table below is generated from the verdict fixtures, YAML of real objects
(`tests/fixtures/verdict/`): each row is one fixture as the judge sees it,
its message an example of the wording. Regenerate with
`UPDATE_REASONS=1 cargo test --test reasons_doc` after a change of reasons.
";

fn load(path: &Path) -> Option<(Object, Snapshot)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut objects = Vec::new();
    let mut events = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
        let value = Value::deserialize(doc).ok()?;
        if value.get("kind").and_then(Value::as_str) == Some("Event") && !objects.is_empty() {
            events.push(Event::from_value(&value)?);
        } else {
            objects.push(Object::from_value(value)?);
        }
    }
    let subject = objects.first()?.clone();
    // A fixture captured on another day says when it is judged.
    let now = text
        .lines()
        .find_map(|l| l.strip_prefix("# judged at: "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or(NOW);
    Some((
        subject,
        Snapshot::new(objects, events, vec![], now.parse().ok()?),
    ))
}

/// `|` and newlines would break a Markdown table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// (reason, verdict) -> (example message, fixture), for one kind.
type Rows = BTreeMap<(String, String), (String, String)>;

fn generate() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdict");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let mut by_kind: BTreeMap<String, Rows> = BTreeMap::new();
    for path in &paths {
        let Some((obj, snap)) = load(path) else {
            panic!("{}: not a fixture this test can read", path.display());
        };
        let j = judge(&obj, &Judged::builtin(&snap));
        let kind = match obj.group() {
            "" => obj.kind().to_string(),
            group => format!("{} ({group})", obj.kind()),
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        by_kind
            .entry(kind)
            .or_default()
            .entry((j.reason.to_string(), j.verdict.to_string()))
            .or_insert((j.message.clone(), name));
    }
    let mut out = String::from(HEAD);
    out.push_str(&every_code());
    for (kind, reasons) in &by_kind {
        out.push_str(&format!(
            "\n## {kind}\n\n| reason | verdict | example message | fixture |\n|---|---|---|---|\n"
        ));
        for ((reason, verdict), (message, fixture)) in reasons {
            out.push_str(&format!(
                "| `{}` | {verdict} | {} | `{fixture}` |\n",
                cell(reason),
                cell(message)
            ));
        }
    }
    out
}

/// Every code the tool knows, by the family whose next steps read it: the
/// one table (src/verdict/reason.rs) as the document lists it.
fn every_code() -> String {
    let mut families: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for code in Reason::codes() {
        let word = if FROM_KUBERNETES.contains(&code) {
            format!("`{}`*", code.as_str())
        } else {
            format!("`{}`", code.as_str())
        };
        families
            .entry(code.family().expect("a code has a family"))
            .or_default()
            .push(word);
    }
    let mut out = String::from(
        "\n## Every code\n\nThe reasons the tool knows, by the family of objects whose next steps\nread them (src/verdict/reason.rs). A reason outside this list is a\ncontroller's or a health rule's own word, reported as written. Starred\ncodes are never written by the tool itself: they are the words of\nKubernetes' own components (the kubelet, the Job controller, a Node's\nconditions, an autoscaler), reported as the component wrote them.\n\n| family | codes |\n|---|---|\n",
    );
    for (family, codes) in families {
        out.push_str(&format!("| {family} | {} |\n", codes.join(", ")));
    }
    out
}

/// The source of the crate outside the reason table, the next steps (which
/// match every code of their family) and test modules: where a code is
/// made, or read from what a component wrote.
fn producing_source() -> String {
    fn walk(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "steps" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "reason.rs" && !name.ends_with("tests.rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = match text.find("#[cfg(test)]\nmod tests {") {
                    Some(i) => &text[..i],
                    None => &text,
                };
                out.push_str(code);
            }
        }
    }
    let mut out = String::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out
}

#[test]
fn every_code_is_named_or_read_and_described() {
    let source = producing_source();
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reasons.md"))
            .unwrap();
    let mut wrong = Vec::new();
    for code in Reason::codes() {
        let family = code.family().unwrap();
        let named = format!("{family}::{}", code.as_str());
        let made = source
            .match_indices(&named)
            .any(|(i, _)| !source[i + named.len()..].starts_with(|c: char| c.is_alphanumeric()));
        let read = FROM_KUBERNETES.contains(&code);
        if !made && !read {
            wrong.push(format!(
                "{named} is named by nothing in the core and is no word of Kubernetes: remove it"
            ));
        }
        if !doc.contains(&format!("`{}`", code.as_str())) {
            wrong.push(format!("{named} is not described in docs/reasons.md"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn the_reason_catalogue_matches_the_judge() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reasons.md");
    let want = generate();
    if std::env::var_os("UPDATE_REASONS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reasons.md is stale: the judge's reasons changed.\nRegenerate it with UPDATE_REASONS=1 cargo test --test reasons_doc"
    );
}
