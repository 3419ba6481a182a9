//! End to end on the real control plane: a user's health rule overrides
//! the generic conventions for a custom resource, through `status`'s exit
//! status and JSON; rule sources and their errors through the real binary.

mod common;
mod support;

use std::path::Path;
use std::time::Duration;

use support::{Namespace, Run, cluster, wait_until};

/// The plugin with a config directory of the test's own (so a developer's
/// `~/.config/kubectl-reconcile/health-rules.yaml` never leaks in) and the
/// given `KUBECTL_RECONCILE_HEALTH_RULES`.
fn reconcile_with(config_home: &Path, env_rules: Option<&Path>, args: &[&str]) -> Run {
    let mut cmd = support::plugin_as(&cluster().kubeconfig)
        .env("XDG_CONFIG_HOME", config_home)
        .env_remove("KUBECTL_RECONCILE_HEALTH_RULES")
        .args(args);
    if let Some(path) = env_rules {
        cmd = cmd.env("KUBECTL_RECONCILE_HEALTH_RULES", path);
    }
    cmd.run()
}

const IDLE_RULE: &str = r#"
rules:
  - group: rules.reconcile.dev
    kind: Pool
    checks:
      - when: isFalse("Ready") && condition("Ready").reason == "ScaledToZero"
        verdict: Converged
        reason: Idle
        message: '"pool " + object.metadata.name + " is scaled to zero on purpose"'
"#;

#[test]
fn a_user_rule_overrides_the_conventions_on_a_live_custom_resource() {
    support::install_crd("pools", "Pool", "rules.reconcile.dev", "", "");
    let ns = Namespace::new("rules-idle");
    ns.apply(
        "apiVersion: rules.reconcile.dev/v1\nkind: Pool\nmetadata: {name: batch}\nspec: {size: 0}\n",
    );
    ns.kubectl(&[
        "patch",
        "pool.rules.reconcile.dev/batch",
        "--subresource=status",
        "--type=merge",
        "-p",
        // Just now: a Ready=False that has lasted long is escalated by the
        // conventions ("no progress for ..."), which is not what this tests.
        &format!(
            r#"{{"status":{{"observedGeneration":1,"conditions":[{{"type":"Ready","status":"False","reason":"ScaledToZero","message":"0 of 0 workers","lastTransitionTime":"{}"}}]}}}}"#,
            jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ")
        ),
    ])
    .ok();
    wait_until("the status is written", Duration::from_secs(30), || {
        ns.jsonpath(
            "pool.rules.reconcile.dev/batch",
            "{.status.conditions[0].reason}",
        ) == "ScaledToZero"
    });

    let home = tempfile::tempdir().unwrap();
    let target = "pool.rules.reconcile.dev/batch";
    let status = |env: Option<&Path>, extra: &[&str]| {
        let mut args = vec!["-n", ns.name.as_str(), "status", target, "-o", "json"];
        args.extend_from_slice(extra);
        let run = reconcile_with(home.path(), env, &args);
        let doc = run.json();
        (run.code, doc["items"][0].clone())
    };

    // The conventions: Ready=False is not converged.
    let (code, item) = status(None, &[]);
    assert_eq!(code, 1, "{item:#}");
    assert_eq!(item["verdict"], "Progressing", "{item:#}");

    // The user's rule: this Ready=False is the resting state.
    let rules = home.path().join("team-rules.yaml");
    std::fs::write(&rules, IDLE_RULE).unwrap();
    let (code, item) = status(None, &["--health-rules", rules.to_str().unwrap()]);
    assert_eq!(code, 0, "{item:#}");
    assert_eq!(item["verdict"], "Converged", "{item:#}");
    assert_eq!(item["reason"], "Idle", "{item:#}");
    assert_eq!(
        item["message"], "pool batch is scaled to zero on purpose",
        "{item:#}"
    );

    // The same rule from the environment variable, and from the config file.
    let (code, item) = status(Some(&rules), &[]);
    assert_eq!((code, &item["reason"]), (0, &"Idle".into()), "{item:#}");
    let config = home.path().join("kubectl-reconcile");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("health-rules.yaml"), IDLE_RULE).unwrap();
    let (code, item) = status(None, &[]);
    assert_eq!((code, &item["reason"]), (0, &"Idle".into()), "{item:#}");

    // --health-rules overrides the config file: a flag rule that says Failed.
    let strict = home.path().join("strict.yaml");
    std::fs::write(
        &strict,
        IDLE_RULE
            .replace("verdict: Converged", "verdict: Failed")
            .replace("reason: Idle", "reason: NoWorkers"),
    )
    .unwrap();
    let (code, item) = status(None, &["--health-rules", strict.to_str().unwrap()]);
    assert_eq!(code, 1, "{item:#}");
    assert_eq!(
        (&item["verdict"], &item["reason"]),
        (&"Failed".into(), &"NoWorkers".into()),
        "{item:#}"
    );
}

#[test]
fn rules_lists_sources_and_a_bad_rule_is_exit_2_with_its_position() {
    let home = tempfile::tempdir().unwrap();
    let mine = home.path().join("mine.yaml");
    std::fs::write(
        &mine,
        "rules:\n  - group: cert-manager.io\n    kind: Certificate\n    checks:\n      - when: isTrue(\"Ready\")\n        verdict: Converged\n        reason: Ready\n",
    )
    .unwrap();
    let run = reconcile_with(
        home.path(),
        None,
        &[
            "rules",
            "--health-rules",
            mine.to_str().unwrap(),
            "-o",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = run.json();
    assert_eq!(doc["kind"], "HealthRuleList");
    let rules = doc["rules"].as_array().unwrap();
    let cert = rules
        .iter()
        .find(|r| r["group"] == "cert-manager.io" && r["kind"] == "Certificate")
        .unwrap();
    assert_eq!(cert["source"]["kind"], "flag");
    assert_eq!(cert["source"]["path"], mine.to_str().unwrap());
    assert_eq!(cert["overrides"][0]["kind"], "builtin");
    let flux = rules.iter().find(|r| r["kind"] == "Kustomization").unwrap();
    assert_eq!(flux["source"]["kind"], "builtin");

    let text = reconcile_with(home.path(), None, &["rules"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.starts_with("GROUP "), "{}", text.stdout);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("postgresql.cnpg.io ")
                && l.contains(" Cluster ")
                && l.ends_with(" builtin (cloudnative-pg)")),
        "{}",
        text.stdout
    );

    std::fs::write(
        &mine,
        "rules:\n  - group: example.com\n    kind: Widget\n    checks:\n      - when: object.status.phase ==\n        verdict: Failed\n        reason: Broken\n",
    )
    .unwrap();
    let bad = reconcile_with(
        home.path(),
        Some(&mine),
        &["status", "-n", "default", "--snapshot", "-"],
    );
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    let expected = format!(
        "error: health rules in KUBECTL_RECONCILE_HEALTH_RULES={}: rule 1 (Widget.example.com), check 1, `when`: ",
        mine.display()
    );
    assert!(bad.stderr.starts_with(&expected), "{}", bad.stderr);
    assert!(bad.stderr.contains("(line 1, column "), "{}", bad.stderr);
    assert!(bad.stderr.contains("\nhint: "), "{}", bad.stderr);
    assert!(bad.stdout.is_empty());
}

/// `wait` judges every snapshot its watches produce by the user's rules:
/// it ends, converged, when the status reaches what the rule calls
/// converged, though the conventions would keep waiting.
#[test]
fn wait_ends_when_a_user_rule_says_converged() {
    support::install_crd("pools", "Pool", "rules.reconcile.dev", "", "");
    let ns = Namespace::new("rules-wait");
    ns.apply(
        "apiVersion: rules.reconcile.dev/v1\nkind: Pool\nmetadata: {name: drain}\nspec: {size: 0}\n",
    );
    let set_ready = |reason: &str| {
        ns.kubectl(&[
            "patch",
            "pool.rules.reconcile.dev/drain",
            "--subresource=status",
            "--type=merge",
            "-p",
            &format!(
                r#"{{"status":{{"observedGeneration":1,"conditions":[{{"type":"Ready","status":"False","reason":"{reason}","message":"draining","lastTransitionTime":"{}"}}]}}}}"#,
                jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ")
            ),
        ])
        .ok();
    };
    set_ready("Draining");
    let home = tempfile::tempdir().unwrap();
    let rules = home.path().join("rules.yaml");
    std::fs::write(&rules, IDLE_RULE).unwrap();
    let mut wait = support::Background::start(&[
        "-n",
        &ns.name,
        "wait",
        "pool.rules.reconcile.dev/drain",
        "--timeout",
        "60s",
        "--health-rules",
        rules.to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(wait.exited(), None, "Draining is not converged yet");
    set_ready("ScaledToZero");
    let (code, out, elapsed) = wait.finish(Duration::from_secs(45));
    assert_eq!(code, 0, "{out}");
    assert!(elapsed < Duration::from_secs(45), "{elapsed:?}");
}
