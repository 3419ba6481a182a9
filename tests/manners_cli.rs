//! kubectl's manners, through the binary on the saved snapshot of the test
//! cluster (examples/shop.yaml): output formats and table flags, usage
//! errors, colour from the environment, durations. No cluster needed.

mod common;

use common::run::Cmd;

/// The plugin with `args`, no kubeconfig and no colour settings of the
/// test's environment, only those in `env`.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Cmd::reconcile()
        .env_remove("KUBECONFIG")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .args(args)
        .envs(env.iter().copied())
        .run();
    (out.code, out.stdout, out.stderr)
}

/// The plugin on the shop snapshot.
fn shop(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["--snapshot", "examples/shop.yaml", "-n", "shop"];
    all.extend_from_slice(args);
    run_env(&all, &[])
}

#[test]
fn name_jsonpath_and_custom_columns() {
    let (code, out, _) = shop(&["status", "-o", "name"]);
    assert_eq!(code, 1, "exit status still says whether all converged");
    assert_eq!(
        out,
        "deployment.apps/api\ndeployment.apps/web\njob.batch/migrate\nservice/web\n"
    );
    let (_, out, _) = shop(&[
        "status",
        "-o",
        r#"jsonpath={range .items[*]}{.object.name}={.verdict}{"\n"}{end}"#,
    ]);
    assert_eq!(
        out,
        "api=Converged\nweb=Failed\nmigrate=Failed\nweb=Converged\n"
    );
    let (_, out, _) = shop(&["status", "-o", "jsonpath={.items[*].reason}"]);
    assert_eq!(
        out,
        "Available ProgressDeadlineExceeded BackoffLimitExceeded EndpointsReady"
    );
    let (_, out, _) = shop(&[
        "status",
        "-o",
        "custom-columns=KIND:.object.kind,REASON:.reason",
        "--sort-by",
        "{.reason}",
        "--no-headers",
    ]);
    assert_eq!(
        out,
        "Deployment  Available\nJob         BackoffLimitExceeded\nService     EndpointsReady\nDeployment  ProgressDeadlineExceeded\n"
    );
    let (_, out, _) = shop(&[
        "why",
        "-o",
        "custom-columns=NAME:.object.name,ROOT:.rootCause.reason",
    ]);
    assert_eq!(
        out,
        "NAME     ROOT\nweb      ImagePullBackOff\nmigrate  Error\n"
    );
    // The wide columns are the document's: any -o sees them.
    let (_, out, _) = shop(&[
        "status",
        "pods",
        "-o",
        "custom-columns=NAME:.object.name,CONTROLLER:.controller,NODE:.node",
        "--no-headers",
    ]);
    let first = out.lines().next().unwrap_or_default();
    let cells: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cells.len(), 3, "{out}");
    assert!(
        cells[1].starts_with("ReplicaSet/") || cells[1].starts_with("Job/"),
        "{out}"
    );
    assert!(!cells[2].is_empty() && cells[2] != "<none>", "{out}");
    let (_, out, _) = shop(&[
        "status",
        "deploy/web",
        "-o",
        "jsonpath={.items[0].controller}",
    ]);
    assert_eq!(out, "", "a Deployment has no controller");
    let (_, out, _) = shop(&["tree", "job/migrate", "-o", "name"]);
    assert!(out.starts_with("job.batch/migrate\npod/migrate-"), "{out}");
}

#[test]
fn wide_labels_and_field_selectors() {
    let (_, out, _) = shop(&["tree", "deploy/web", "-o", "wide"]);
    assert!(
        out.starts_with("NAME "),
        "tree draws its own columns: {out}"
    );
    let (_, out, _) = shop(&["status", "-o", "wide", "deploy/web"]);
    let head: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        head,
        [
            "NAME",
            "VERDICT",
            "REASON",
            "READY",
            "SINCE",
            "GENERATION",
            "CONTROLLER",
            "NODE",
            "MESSAGE"
        ]
    );
    assert!(out.lines().nth(1).unwrap().contains(" 3/3  "), "{out}");
    let (_, out, _) = shop(&[
        "status",
        "--field-selector",
        "metadata.name=web,kind!=Service",
        "-L",
        "app",
        "--show-labels",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    // LABELS last, as kubectl prints it.
    assert!(
        lines[0].contains("  APP  MESSAGE  ") && lines[0].ends_with("  LABELS"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("Deployment/web ")
            && lines[1].contains("  web  ")
            && lines[1].ends_with(" app=web"),
        "{out}"
    );
    // tree too: labels last, headers dropped, NAMESPACE always under -A.
    let (_, out, _) = shop(&["tree", "deploy/api", "--show-labels", "--no-headers"]);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("Deployment/api ") && first.ends_with(" app=api"),
        "{out}"
    );
    let (_, out, _) = run_env(
        &[
            "--snapshot",
            "examples/shop.yaml",
            "-A",
            "tree",
            "deployments",
        ],
        &[],
    );
    assert!(out.starts_with("NAMESPACE  NAME "), "{out}");
}

#[test]
fn server_and_token_flags_work_over_an_empty_kubeconfig() {
    // kubectl's `-s URL --token T` in CI, where KUBECONFIG is empty or bare.
    let dir = std::env::temp_dir().join(format!("reconcile-bare-kc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [("empty", ""), ("bare", "apiVersion: v1\nkind: Config\n")] {
        let kc = dir.join(name);
        std::fs::write(&kc, text).unwrap();
        let (code, _, err) = run_env(
            &[
                "status",
                "pods",
                "-s",
                "https://127.0.0.1:1",
                "--token",
                "t",
                "--request-timeout",
                "2s",
            ],
            &[("KUBECONFIG", kc.to_str().unwrap())],
        );
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains("cannot reach the API server at 127.0.0.1:1"),
            "{name}: {err}"
        );
        // Without -s it is still the kubeconfig's fault, said so.
        let (_, _, err) = run_env(&["status", "pods"], &[("KUBECONFIG", kc.to_str().unwrap())]);
        assert!(
            err.contains("the kubeconfig does not describe a usable cluster"),
            "{name}: {err}"
        );
    }
}

#[test]
fn all_namespaces_shows_the_namespace_and_refuses_a_name() {
    let (_, out, _) = run_env(&["--snapshot", "examples/shop.yaml", "-A", "status"], &[]);
    assert!(out.starts_with("NAMESPACE "), "{out}");
    let (code, out, err) = run_env(
        &[
            "--snapshot",
            "examples/shop.yaml",
            "-A",
            "status",
            "deploy/web",
        ],
        &[],
    );
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: a resource cannot be retrieved by name across all namespaces\n"
        )
    );
}

#[test]
fn usage_errors_are_one_line_and_where_to_read_more() {
    let (code, out, err) = shop(&["status", "--no-header"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: unknown flag: --no-header\nhint: did you mean --no-headers?\nSee 'kubectl reconcile status --help' for usage.\n"
    );
    let (code, _, err) = shop(&["wait", "deploy/web", "--timeout", "soon"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: --timeout \"soon\" is not a duration"),
        "{err}"
    );
    let (code, _, err) = shop(&["status", "-o", "jsonpath={range .items[*]}"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no {end}"), "{err}");
}

#[test]
fn colour_follows_no_color_and_clicolor_force() {
    let args = ["--snapshot", "examples/shop.yaml", "-n", "shop", "status"];
    let (_, out, _) = run_env(&args, &[("CLICOLOR_FORCE", "1")]);
    assert!(out.contains('\u{1b}'), "CLICOLOR_FORCE colours a pipe");
    let (_, out, _) = run_env(&args, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!out.contains('\u{1b}'), "NO_COLOR wins");
    let (_, out, _) = run_env(&args, &[]);
    assert!(!out.contains('\u{1b}'), "no colour on a pipe");
    let mut forced = args.to_vec();
    forced.extend(["--color", "always"]);
    let (_, out, _) = run_env(&forced, &[("NO_COLOR", "1")]);
    assert!(out.contains('\u{1b}'), "--color always wins");
}

#[test]
fn request_timeouts_as_go_spells_them() {
    for good in ["1m30s", "500ms", "2h", "30"] {
        let (code, _, err) = shop(&["status", "--request-timeout", good]);
        assert_eq!(code, 1, "{good}: {err}");
    }
    let (code, _, err) = shop(&["status", "--request-timeout", "5d"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: --request-timeout \"5d\""), "{err}");
}

/// `kubectl reconcile` alone is the front door: a short overview on stdout,
/// exit 0, so `kubectl reconcile | less` shows it.
#[test]
fn no_arguments_print_an_overview_on_stdout_and_exit_0() {
    let (code, stdout, stderr) = run_env(&[], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.starts_with("kubectl reconcile: "), "{stdout}");
    assert!(
        stdout.contains("kubectl reconcile why deploy/web"),
        "{stdout}"
    );
    assert!(stdout.lines().count() < 25, "{stdout}");
    let (code, options, _) = run_env(&["options"], &[]);
    assert_eq!(code, 0);
    assert!(options.contains("--kubeconfig <PATH>"), "{options}");
}

/// A name one typo away is offered, in status, tree and why alike; a name
/// nothing is close to gets no guess.
#[test]
fn a_name_not_found_offers_a_close_one() {
    for command in ["status", "tree", "why"] {
        let (code, stdout, stderr) = shop(&[command, "deploy/wbe"]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stdout.contains("did you mean web?"), "{command}:\n{stdout}");
    }
    let (_, why, _) = shop(&["why", "deploy/wbe"]);
    assert!(
        why.contains("kubectl reconcile -n shop why deployment.apps/web"),
        "{why}"
    );
    let (_, far, _) = shop(&["status", "deploy/checkout-frontend"]);
    assert!(!far.contains("did you mean"), "{far}");
}

/// `-l` without a TYPE filters the sweep's roots, as a user means it; wait
/// still needs a TYPE, and a selector that does not parse is an error.
#[test]
fn a_selector_without_a_type_filters_the_sweep() {
    let (code, stdout, stderr) = shop(&["status", "-l", "app=web"]);
    assert_eq!(code, 1, "{stderr}");
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert!(rows[0].starts_with("Deployment/web "), "{stdout}");
    let (code, stdout, _) = shop(&["status", "-l", "app=api"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("Deployment/api") && !stdout.contains("Job/"),
        "{stdout}"
    );
    let (code, _, stderr) = shop(&["wait", "-l", "app=web"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("needs a TYPE"), "{stderr}");
    let (code, _, stderr) = shop(&["status", "-l", "app in (web"]);
    assert_eq!(code, 2, "{stderr}");
}

/// `--verdict` and `--not-converged` filter the rows of status and the
/// trees of tree, say what they hid, and leave the exit status to every
/// target.
#[test]
fn verdict_filters_show_only_what_was_asked() {
    let (code, stdout, stderr) = shop(&["status", "--not-converged"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(!stdout.contains("Converged  "), "{stdout}");
    assert!(stdout.contains("Job/migrate"), "{stdout}");
    assert!(
        stdout.contains("(2 Converged rows not shown: --not-converged)"),
        "{stdout}"
    );
    let (code, stdout, _) = shop(&["status", "--verdict", "Converged"]);
    assert_eq!(code, 1, "the exit status follows every target:\n{stdout}");
    assert!(!stdout.contains("Failed"), "{stdout}");
    let (_, json, _) = shop(&["status", "--verdict", "failed", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let items = doc["items"].as_array().unwrap();
    assert!(items.iter().all(|i| i["verdict"] == "Failed"), "{json}");
    let (_, tree, _) = shop(&["tree", "deploy/web", "deploy/api", "--not-converged"]);
    assert!(
        tree.contains("Deployment/web") && !tree.contains("Deployment/api"),
        "{tree}"
    );
    let (code, _, stderr) = shop(&["status", "--verdict", "Ready"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown verdict \"Ready\""), "{stderr}");
}
