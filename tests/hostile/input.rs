//! Input built to hurt: nesting far deeper than any object, and owner
//! chains thousands long. Refused or cut at once, and said so.

use std::time::Duration;

use crate::{run, scratch};

#[test]
fn deep_nesting_is_refused_at_once_by_snapshot_and_manifests() {
    let dir = scratch();
    let n = 100_000;
    let json = dir.path().join("deep.json");
    std::fs::write(&json, format!("{}{}", "[".repeat(n), "]".repeat(n))).unwrap();
    let yaml = dir.path().join("deep.yaml");
    std::fs::write(
        &yaml,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec: {}\n",
            "{a: [".repeat(n / 2)
        ),
    )
    .unwrap();
    for (file, line) in [(&json, 1), (&yaml, 5)] {
        let file = file.to_str().unwrap();
        for args in [
            vec!["status", "--snapshot", file],
            vec!["status", "-f", file, "--snapshot", file],
        ] {
            let out = run(dir.path(), &args, Duration::from_secs(30));
            out.assert(2, Duration::from_secs(2));
            assert!(
                out.stderr.starts_with("error: ")
                    && out.stderr.contains(&format!(
                        "{file}, line {line}: nested more than 128 levels deep"
                    )),
                "{args:?}: {}",
                out.stderr
            );
        }
    }
}

/// A snapshot of `n` Widgets, each owned by the one before.
fn chain(n: usize) -> String {
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let mut meta = serde_json::json!({"name": format!("w{i}"), "namespace": "a", "uid": format!("u{i}"),
            "creationTimestamp": "2026-01-01T00:00:00Z"});
        if i > 0 {
            meta["ownerReferences"] = serde_json::json!([{"apiVersion": "example.com/v1", "kind": "Widget",
                "name": format!("w{}", i - 1), "uid": format!("u{}", i - 1), "controller": true}]);
        }
        items.push(
            serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta}),
        );
    }
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

#[test]
fn an_owner_chain_thousands_deep_is_cut_and_says_where() {
    let dir = scratch();
    let snap = dir.path().join("chain.json");
    std::fs::write(&snap, chain(8_000)).unwrap();
    let snap = snap.to_str().unwrap();
    for (args, says) in [
        (
            vec!["tree", "widget/w0", "-n", "a"],
            "the tree is cut here, 64 levels down: 7935 objects below are left out",
        ),
        (
            vec!["tree", "widget/w7999", "-n", "a", "--owners"],
            "the owner chain is cut here, after 64 owners: 7935 owners from this one up are left out",
        ),
        (vec!["why", "widget/w0", "-n", "a"], ""),
        (
            vec!["tree", "widget/w0", "-n", "a", "-o", "json"],
            "the tree is cut here",
        ),
        (
            vec!["tree", "widget/w7999", "-n", "a", "--owners", "-o", "yaml"],
            "state: cut",
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--snapshot", snap]);
        let out = run(dir.path(), &args, Duration::from_secs(60));
        assert!(
            out.code == 0 || out.code == 1,
            "{args:?} exit {}\n{}",
            out.code,
            out.stderr
        );
        assert!(
            out.took < Duration::from_secs(10),
            "{args:?} took {:?}",
            out.took
        );
        crate::assert_inert(&out.stdout);
        assert!(
            out.stdout.len() < 200_000,
            "{args:?}: {} bytes",
            out.stdout.len()
        );
        assert!(out.stdout.contains(says), "{args:?}:\n{}", out.stdout);
    }
}

#[test]
fn a_tree_of_every_link_of_a_long_chain_is_bounded_in_all() {
    // Every Widget of a 3,000 chain draws the 64 below it and the 64 above:
    // 384,000 rows uncut. The answer stops at 50,000 objects and says so.
    let dir = scratch();
    let snap = dir.path().join("chain.json");
    std::fs::write(&snap, chain(3_000)).unwrap();
    let snap = snap.to_str().unwrap();
    for format in ["text", "json"] {
        let args = [
            "tree",
            "widgets",
            "-n",
            "a",
            "--owners",
            "-o",
            format,
            "--snapshot",
            snap,
        ];
        // The work is bounded by the answer's cut (50,000 objects, checked
        // below); the time is only a guard against a hang, generous for a
        // loaded machine.
        let out = run(dir.path(), &args, Duration::from_secs(180));
        out.assert(0, Duration::from_secs(150));
        assert!(
            out.peak_kib < 600 * 1024,
            "{format}: peak {} MiB",
            out.peak_kib / 1024
        );
        // Every target is still there, judged.
        assert!(out.stdout.contains("w2999"), "{format}");
        if format == "text" {
            assert!(out.stdout.len() < 40_000_000, "{} bytes", out.stdout.len());
            assert!(
                out.stdout.contains("the answer is cut at 50000 objects: ")
                    && out.stdout.contains("its tree is not drawn")
                    && out.stdout.contains("hint: name fewer targets"),
                "{}",
                &out.stdout[out.stdout.len().saturating_sub(2000)..]
            );
        } else {
            // The trees nest deeper than serde_json parses by default: the
            // cut is read from the document's end, where it is written.
            let at = out.stdout.rfind("\"cut\": ").expect("a cut") + "\"cut\": ".len();
            let tail = &out.stdout[at..];
            let cut: serde_json::Value =
                serde_json::from_str(&tail[..=tail.find('}').unwrap()]).unwrap();
            assert_eq!(cut["limit"], 50_000);
            let without = cut["targetsWithoutTree"].as_u64().unwrap();
            assert!(without > 2_000, "{cut}");
            assert_eq!(
                out.stdout.matches("its tree is not drawn").count() as u64,
                without
            );
        }
    }
}

#[test]
fn objects_without_a_uid_are_judged_not_crashed_on() {
    // Found by the fuzzer: a snapshot object with no uid (or `uid: null`)
    // made `tree` panic.
    let dir = scratch();
    let snap = dir.path().join("no-uid.yaml");
    std::fs::write(
        &snap,
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n  namespace: a\n  uid: null\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: db-0\n  namespace: a\n",
    )
    .unwrap();
    let snap = snap.to_str().unwrap();
    for args in [
        vec!["tree", "sts/db", "-n", "a", "--owners"],
        vec!["why", "pod/db-0", "-n", "a"],
        vec!["status", "-n", "a"],
        vec!["why", "-n", "a"],
    ] {
        let mut args = args.clone();
        args.extend(["--snapshot", snap]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(1, Duration::from_secs(5));
        assert!(
            out.stdout.contains("StatefulSet/db") || out.stdout.contains("Pod/db-0"),
            "{args:?}: {}",
            out.stdout
        );
    }
}

#[test]
fn documents_carry_hostile_text_as_escapes_and_stay_valid() {
    let dir = scratch();
    let snap = dir.path().join("hostile.json");
    let hostile = crate::network::HOSTILE;
    let pod = serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web\u{200b}-0", "namespace": "a", "uid": "p1",
                     "labels": {"app": format!("web{hostile}")}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False",
                   "reason": "Unschedulable\u{202e}", "message": hostile,
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    });
    std::fs::write(&snap, pod.to_string()).unwrap();
    let snap = snap.to_str().unwrap();
    for output in ["json", "yaml", "text"] {
        let out = run(
            dir.path(),
            &["status", "-A", "-o", output, "--snapshot", snap],
            Duration::from_secs(30),
        );
        out.assert(1, Duration::from_secs(5));
        let doc: serde_json::Value = match output {
            "json" => serde_json::from_str(&out.stdout).unwrap(),
            "yaml" => serde_yaml_ng::from_str(&out.stdout).unwrap(),
            _ => {
                assert!(out.stdout.contains(r"web\u{200b}-0"), "{}", out.stdout);
                continue;
            }
        };
        // Escaped on the wire, the same text once parsed.
        let item = &doc["items"][0];
        assert_eq!(item["object"]["name"], "web\u{200b}-0", "{output}");
        assert!(
            out.stdout.contains(r"web\u200b-0"),
            "{output}: {}",
            out.stdout
        );
    }
}

/// A rules file with one check whose `when` is `expr`.
fn rules_with(dir: &std::path::Path, expr: &str) -> String {
    let path = dir.join("rules.yaml");
    let quoted = serde_json::to_string(expr).unwrap();
    std::fs::write(
        &path,
        format!(
            "rules:\n- group: example.com\n  kind: Widget\n  checks:\n  - when: {quoted}\n    verdict: Converged\n    reason: Ready\n    message: '\"ready\"'\n"
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn health_rules_too_costly_or_too_deep_are_refused_not_run() {
    let dir = scratch();
    let nested_all = format!(
        "{}true{}",
        "[1,2,3,4,5,6,7,8,9,10].all(a, ".repeat(8),
        ")".repeat(8)
    );
    let long_sum = format!("1{} == 0", " + 1".repeat(5000));
    let deep_index = format!("[0]{} == 0", "[0]".repeat(5000));
    let deep_member = format!("object{} == 1", ".a".repeat(20_000));
    for (expr, said) in [
        (&nested_all, "comprehensions"),
        (&long_sum, "characters long"),
        (&deep_index, "characters long"),
        (&deep_member, "characters long"),
    ] {
        let file = rules_with(dir.path(), expr);
        let out = run(
            dir.path(),
            &["rules", "--health-rules", &file],
            Duration::from_secs(30),
        );
        out.assert(2, Duration::from_secs(3));
        assert!(out.stderr.contains(said), "{}", out.stderr);
    }
    // Under the length, but chained past the terms a parse may recurse.
    let chained = format!("object{} == 1", ".a".repeat(300));
    let file = rules_with(dir.path(), &chained);
    let out = run(
        dir.path(),
        &["rules", "--health-rules", &file],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(3));
    assert!(
        out.stderr.contains("operators and member accesses"),
        "{}",
        out.stderr
    );
}

/// What a rule builds over an object is bounded at run time: three
/// nested comprehensions over a thousand elements (a billion steps, which
/// ran to the command's deadline), and two nested `map`s building strings
/// over a 1 MiB field (which aborted the tool at 5.9 GB), each stop at the
/// rules' budget with an error verdict that names the rule.
#[test]
fn a_costly_rule_stops_at_its_budget_with_an_error_naming_it() {
    let dir = scratch();
    let items: Vec<u32> = (0..1000).collect();
    let widget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "w", "generation": 1},
        "status": {"items": items, "big": "x".repeat(1 << 20)}});
    let snap = dir.path().join("snap.json");
    std::fs::write(&snap, widget.to_string()).unwrap();
    for expr in [
        "object.status.items.all(a, object.status.items.all(b, object.status.items.all(c, c >= 0)))",
        "object.status.items.map(a, object.status.items.map(b, object.status.big + string(a))).size() > 0",
        "object.status.items.map(a, object.status.items.map(b, object.status.items.map(c, a + b + c))).size() > 0",
    ] {
        let file = rules_with(dir.path(), expr);
        let out = run(
            dir.path(),
            &[
                "status",
                "widgets/w",
                "-n",
                "default",
                "--snapshot",
                snap.to_str().unwrap(),
                "--health-rules",
                &file,
            ],
            Duration::from_secs(90),
        );
        out.assert(1, Duration::from_secs(10));
        assert!(
            out.stdout.contains("HealthRuleError")
                && out.stdout.contains("health rule 1 for Widget.example.com")
                && out.stdout.contains("budget"),
            "{expr}: {}",
            out.stdout
        );
        assert!(
            out.peak_kib < 512 * 1024,
            "{expr}: peak {} KiB",
            out.peak_kib
        );
    }
}

#[test]
fn deep_yaml_after_a_quote_in_a_plain_scalar_is_refused_at_once() {
    // `name: a"` is a plain scalar: the quote opens no string, and the
    // 100,000 levels after it are refused before parsing (31 s before).
    let dir = scratch();
    let yaml = dir.path().join("quoted.yaml");
    std::fs::write(
        &yaml,
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\"\nspec: {}\n",
            "{a: [".repeat(50_000)
        ),
    )
    .unwrap();
    let file = yaml.to_str().unwrap();
    let out = run(
        dir.path(),
        &["status", "--snapshot", file],
        Duration::from_secs(60),
    );
    out.assert(2, Duration::from_secs(2));
    assert!(
        out.stderr.contains("nested more than 128 levels deep"),
        "{}",
        out.stderr
    );
}

/// A duration longer than the clock can hold is held as long as it can
/// (a year), instead of crashing on the overflow (it was exit 101):
/// against a server that is not there, the answer is the usual exit 2.
#[test]
fn a_duration_past_the_clock_is_no_crash() {
    let dir = scratch();
    let kc = crate::token_kubeconfig(dir.path(), "https://127.0.0.1:1");
    let kc = kc.to_str().unwrap();
    let huge = "18446744073709551615";
    for args in [
        vec![
            "wait",
            "deploy/web",
            "--timeout",
            huge,
            "--request-timeout",
            "2s",
        ],
        vec!["status", "deploy/web", "--request-timeout", huge],
        vec!["tree", "deploy/web", "--request-timeout", "99999999999h"],
    ] {
        let mut args = args.clone();
        args.extend(["--kubeconfig", kc]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, Duration::from_secs(10));
        assert!(
            out.stderr.contains("cannot reach the API server"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// A "billion laughs" padded with ordinary nodes, which buy alias jumps
/// under the YAML parser's own guard: a 20,000-item list, then nine levels
/// of nine aliases, in a file of about 150 KB.
fn padded_alias_ladder() -> String {
    let mut text = String::from("apiVersion: v1\nkind: List\nitems: []\npad:\n");
    for i in 0..20_000 {
        text.push_str(&format!("- {i}\n"));
    }
    text.push_str("l0: &l0 [lol]\n");
    for level in 1..10 {
        let refs = vec![format!("*l{}", level - 1); 9].join(", ");
        text.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
    }
    text
}

#[test]
fn a_padded_alias_bomb_is_refused_at_once_in_every_yaml_input() {
    let dir = scratch();
    let bomb = dir.path().join("bomb.yaml");
    std::fs::write(&bomb, padded_alias_ladder()).unwrap();
    let file = bomb.to_str().unwrap();
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, format!("rules: []\n{}", padded_alias_ladder())).unwrap();
    let ok = dir.path().join("ok.yaml");
    std::fs::write(
        &ok,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n",
    )
    .unwrap();
    for args in [
        vec!["status", "--snapshot", file],
        vec!["status", "-f", file, "--snapshot", ok.to_str().unwrap()],
        vec!["rules", "--health-rules", rules.to_str().unwrap()],
    ] {
        let out = run(dir.path(), &args, Duration::from_secs(60));
        // Before the bound: 22 s and 1.6 GB for a quarter of this padding.
        out.assert(2, Duration::from_secs(3));
        assert!(
            out.stderr.contains("alias bomb") && out.stderr.contains("line"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// Local input is read only from regular files (or standard input), and
/// never past a stated size: `/dev/zero` grew to the memory limit and a
/// FIFO with no writer blocked forever.
#[test]
fn local_files_are_bounded_and_never_block() {
    let dir = scratch();
    let fifo = dir.path().join("snap.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    for (args, said) in [
        (
            vec!["status", "--snapshot", "/dev/zero"],
            "a device, not a regular file",
        ),
        (
            vec!["status", "--snapshot", fifo],
            "a FIFO (named pipe), not a regular file",
        ),
        (
            vec!["rules", "--health-rules", "/dev/zero"],
            "a device, not a regular file",
        ),
        (
            vec![
                "status",
                "--snapshot",
                fifo,
                "-o",
                "jsonpath-file=/dev/zero",
            ],
            "a device, not a regular file",
        ),
    ] {
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, Duration::from_secs(3));
        assert!(out.stderr.contains(said), "{args:?}: {}", out.stderr);
    }
    // Past the limit, refused with the flag that raises it; raised, read.
    let snap = dir.path().join("big.yaml");
    let pad = "#".repeat(4096);
    std::fs::write(
        &snap,
        format!("{pad}\napiVersion: v1\nkind: Namespace\nmetadata: {{name: default, uid: u}}\n"),
    )
    .unwrap();
    let snap = snap.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "status",
            "--snapshot",
            snap,
            "--snapshot-limit",
            "4Ki",
            "-A",
        ],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(3));
    assert!(
        out.stderr.contains("larger than 4 KiB") && out.stderr.contains("--snapshot-limit"),
        "{}",
        out.stderr
    );
    let out = run(
        dir.path(),
        &[
            "status",
            "--snapshot",
            snap,
            "--snapshot-limit",
            "8Ki",
            "-A",
        ],
        Duration::from_secs(30),
    );
    assert_ne!(out.code, 2, "{}", out.stderr);
}

/// A real ESC and the text `\x1b` written by someone who wants it to look
/// like one print differently: the text's backslash is doubled.
#[test]
fn a_real_escape_and_its_spelling_are_told_apart() {
    let dir = scratch();
    let widget = |name: &str, message: &str| {
        serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": "default", "uid": name, "generation": 1},
            "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "False",
                "reason": "Broken", "message": message, "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
    };
    let snap = dir.path().join("snap.json");
    std::fs::write(
        &snap,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
            widget("real", "\u{1b}[2Jgone"), widget("spelled", "\\x1b[2Jgone")]})
        .to_string(),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "status",
            "-A",
            "--snapshot",
            snap.to_str().unwrap(),
            "-o",
            "wide",
        ],
        Duration::from_secs(30),
    );
    out.assert(1, Duration::from_secs(5));
    let line = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.contains(&format!("Widget/{name}")))
            .unwrap_or_else(|| panic!("{}", out.stdout))
            .to_string()
    };
    assert!(
        line("real").contains("\\x1b[2Jgone") && !line("real").contains("\\\\x1b"),
        "{}",
        out.stdout
    );
    assert!(line("spelled").contains("\\\\x1b[2Jgone"), "{}", out.stdout);
}
