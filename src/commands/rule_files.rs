//! Where health rules come from, and reading them: the built-in pack, the
//! default file in the user's config directory, the file named by
//! `KUBECTL_RECONCILE_HEALTH_RULES`, and `--health-rules FILE`, each
//! overriding the ones before it. The only I/O of health rules; the judge
//! (`verdict::rules`) compiles the text.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::verdict::rules::{ENV, Origin, RuleSet, RulesError};

/// The user's rule files, in override order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Locations {
    /// The default file; read only when it exists.
    pub config: Option<PathBuf>,
    pub env: Option<PathBuf>,
    pub flag: Option<PathBuf>,
}

impl Locations {
    /// The locations this process sees: its environment and the flag.
    pub fn from_env(flag: Option<PathBuf>) -> Locations {
        Locations {
            config: config_file(
                std::env::var_os("XDG_CONFIG_HOME"),
                std::env::var_os("HOME"),
            ),
            env: std::env::var_os(ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            flag,
        }
    }
}

/// `$XDG_CONFIG_HOME/kubectl-reconcile/health-rules.yaml`, else the same
/// under `~/.config`. A relative XDG_CONFIG_HOME is ignored, as the XDG
/// specification says.
pub fn config_file(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let base = xdg
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("kubectl-reconcile").join("health-rules.yaml"))
}

/// The rules in effect: the built-in pack, then each user file that is
/// there. Without user files, the shared built-in set.
pub fn load(locations: &Locations) -> Result<Arc<RuleSet>, RulesError> {
    let config = locations.config.as_ref().filter(|p| p.is_file());
    let user: Vec<Origin> = config
        .map(|p| Origin::ConfigFile(p.clone()))
        .into_iter()
        .chain(locations.env.clone().map(Origin::Env))
        .chain(locations.flag.clone().map(Origin::Flag))
        .collect();
    if user.is_empty() {
        return Ok(RuleSet::builtin());
    }
    let mut set = RuleSet::default();
    set.add_pack()?;
    for origin in user {
        let path = origin.path().expect("user rules come from files");
        let text = read(path, &origin)?;
        set.add_source(&text, origin)?;
    }
    Ok(Arc::new(set))
}

fn read(path: &Path, origin: &Origin) -> Result<String, RulesError> {
    crate::source::local::read_small_text(path).map_err(|e| RulesError::Read {
        origin: origin.clone(),
        message: e.to_string(),
        hint: match origin {
            Origin::Env(_) => {
                "point KUBECTL_RECONCILE_HEALTH_RULES at a readable file, or unset it"
            }
            Origin::Flag(_) => "give --health-rules a readable YAML file",
            _ => "fix the file's permissions, or move it away",
        },
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use jiff::Timestamp;
    use serde_json::json;

    use super::{Locations, config_file, load};
    use crate::model::Object;
    use crate::verdict::rules::{Origin, RulesError};

    fn now() -> Timestamp {
        "2026-01-10T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn later_sources_replace_earlier_rules_for_the_same_kind() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, reason: &str| {
            let path = dir.path().join(name);
            std::fs::write(
                &path,
                format!("rules:\n  - group: cert-manager.io\n    kind: Certificate\n    checks: [{{verdict: Converged, reason: {reason}}}]\n"),
            )
            .unwrap();
            path
        };
        let config = write("config.yaml", "FromConfig");
        let env = write("env.yaml", "FromEnv");
        let flag = write("flag.yaml", "FromFlag");
        let cert = Object::from_value(json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "c"}, "status": {}}))
        .unwrap();
        let reason = |loc: Locations| {
            let rules = load(&loc).unwrap_or_else(|e| panic!("{e}"));
            let rule = rules.rule_for("cert-manager.io", "Certificate").unwrap();
            (
                rules.judge(&cert, now()).map(|j| j.reason.to_string()),
                rule.origin.clone(),
                rule.overrides.clone(),
            )
        };
        let builtin = reason(Locations::default());
        assert_eq!(builtin.1, Origin::Builtin("cert-manager"));
        assert_ne!(builtin.0.as_deref(), Some("FromConfig"));

        let all = Locations {
            config: Some(config.clone()),
            env: Some(env.clone()),
            flag: Some(flag.clone()),
        };
        let (got, origin, overrides) = reason(all.clone());
        assert_eq!(got.as_deref(), Some("FromFlag"));
        assert_eq!(origin, Origin::Flag(flag.clone()));
        assert_eq!(
            overrides,
            vec![
                Origin::Builtin("cert-manager"),
                Origin::ConfigFile(config.clone()),
                Origin::Env(env.clone())
            ]
        );
        let no_flag = Locations {
            flag: None,
            ..all.clone()
        };
        assert_eq!(reason(no_flag).0.as_deref(), Some("FromEnv"));
        let config_only = Locations {
            config: Some(config.clone()),
            ..Locations::default()
        };
        assert_eq!(reason(config_only).0.as_deref(), Some("FromConfig"));
        // A config file that is not there is no error; a named one is.
        let absent = dir.path().join("absent.yaml");
        let quiet = Locations {
            config: Some(absent.clone()),
            ..Locations::default()
        };
        assert_eq!(reason(quiet).1, Origin::Builtin("cert-manager"));
        let loud = Locations {
            env: Some(absent.clone()),
            ..Locations::default()
        };
        let e = load(&loud).unwrap_err();
        assert!(matches!(e, RulesError::Read { .. }));
        let e = e.to_string();
        assert!(
            e.starts_with(&format!(
                "cannot read health rules from KUBECTL_RECONCILE_HEALTH_RULES={}: ",
                absent.display()
            )),
            "{e}"
        );
        assert!(
            e.contains("\nhint: point KUBECTL_RECONCILE_HEALTH_RULES at a readable file"),
            "{e}"
        );
    }

    #[test]
    fn the_config_file_lives_under_xdg_config_home_or_dot_config() {
        assert_eq!(
            config_file(Some("/xdg".into()), Some("/home/me".into())),
            Some(PathBuf::from("/xdg/kubectl-reconcile/health-rules.yaml"))
        );
        assert_eq!(
            config_file(Some("relative".into()), Some("/home/me".into())),
            Some(PathBuf::from(
                "/home/me/.config/kubectl-reconcile/health-rules.yaml"
            ))
        );
        assert_eq!(
            config_file(None, Some("/home/me".into())),
            Some(PathBuf::from(
                "/home/me/.config/kubectl-reconcile/health-rules.yaml"
            ))
        );
        assert_eq!(config_file(None, None), None);
    }
}
