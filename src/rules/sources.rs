//! Where health rules come from, and reading them: the built-in pack, the
//! default file in the user's config directory, the file named by
//! `KUBECTL_RECONCILE_HEALTH_RULES`, and `--health-rules FILE`, each
//! overriding the ones before it. The only I/O of the rules module.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{BUILTIN, Origin, RuleSet, RulesError};

/// The environment variable naming a rule file.
pub const ENV: &str = "KUBECTL_RECONCILE_HEALTH_RULES";

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
    set.add_source(BUILTIN, Origin::Builtin)?;
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
