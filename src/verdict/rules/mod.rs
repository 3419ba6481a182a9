//! Health rules: for a (group, kind), ordered CEL checks that yield a
//! verdict, a reason and a message. They override the generic conventions
//! of [`crate::verdict`]. Pure: the user's files are read by the command
//! (`commands::rule_files`) and handed here as text.
//!
//! Where rules come from, later overriding earlier for the same (group,
//! kind): the built-in pack (`rules/<operator>/health.yaml`, listed in
//! [`pack::PACK`]), the user's config file,
//! `KUBECTL_RECONCILE_HEALTH_RULES`, `--health-rules FILE`. The format is
//! described in `docs/health-rules.md`.

mod cel;
pub mod file;
pub mod pack;

#[cfg(test)]
mod pack_tests;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use jiff::Timestamp;
use serde::Serialize;

use crate::model::Object;
use crate::verdict::value::{Judgement, Verdict};

use crate::verdict::reason::Lifecycle;
pub use file::RulesError;

/// The environment variable naming a rule file.
pub const ENV: &str = "KUBECTL_RECONCILE_HEALTH_RULES";

/// Where a rule came from, in override order (later wins).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// The built-in pack: the operator's folder (`rules/<operator>/`).
    Builtin(&'static str),
    /// The default file in the user's config directory.
    ConfigFile(PathBuf),
    /// The file named by `KUBECTL_RECONCILE_HEALTH_RULES`.
    Env(PathBuf),
    /// The file given with `--health-rules`.
    Flag(PathBuf),
}

impl Origin {
    /// The file, for every origin but the built-in pack.
    pub fn path(&self) -> Option<&PathBuf> {
        match self {
            Origin::Builtin(_) => None,
            Origin::ConfigFile(p) | Origin::Env(p) | Origin::Flag(p) => Some(p),
        }
    }

    /// `builtin`, `config`, `env` or `flag`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Builtin(_) => "builtin",
            Origin::ConfigFile(_) => "config",
            Origin::Env(_) => "env",
            Origin::Flag(_) => "flag",
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin(_) => f.write_str("builtin"),
            Origin::ConfigFile(p) => write!(f, "{}", p.display()),
            Origin::Env(p) => write!(f, "{}={}", ENV, p.display()),
            Origin::Flag(p) => write!(f, "--health-rules {}", p.display()),
        }
    }
}

/// Which objects a rule is for: an exact group or `*.suffix` or `*`, and an
/// exact kind or `*`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Selector {
    pub group: String,
    pub kind: String,
}

impl Selector {
    /// How specific a match is (higher wins), or None when it does not
    /// match: the group first (exact, then the longest `*.suffix`, then
    /// `*`), then the kind (exact, then `*`).
    /// Whether the selector covers objects of this group and kind.
    pub fn covers(&self, group: &str, kind: &str) -> bool {
        self.matches(group, kind).is_some()
    }

    fn matches(&self, group: &str, kind: &str) -> Option<(u8, usize, u8)> {
        let (group_rank, suffix_len) = if self.group == group {
            (2, 0)
        } else if let Some(suffix) = self.group.strip_prefix("*.") {
            let under = group
                .strip_suffix(suffix)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.'));
            if !under {
                return None;
            }
            (1, suffix.len())
        } else if self.group == "*" {
            (0, 0)
        } else {
            return None;
        };
        let kind_rank = if self.kind == kind {
            1
        } else if self.kind == "*" {
            0
        } else {
            return None;
        };
        Some((group_rank, suffix_len, kind_rank))
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.kind)
        } else {
            write!(f, "{}.{}", self.kind, self.group)
        }
    }
}

/// One rule: the checks for the objects its selector matches.
#[derive(Debug)]
pub struct Rule {
    pub selector: Selector,
    pub origin: Origin,
    /// Position of the rule in its file, from 1; in the built-in pack,
    /// counted on through its folders in the order of [`pack::PACK`].
    pub index: usize,
    pub checks: Vec<file::Check>,
    /// The origins of the rules with the same selector this one replaced.
    pub overrides: Vec<Origin>,
}

/// Every rule in effect: one per selector, the latest origin winning.
#[derive(Debug, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
}

impl RuleSet {
    /// The built-in pack alone, parsed once.
    pub fn builtin() -> Arc<RuleSet> {
        static BUILT: OnceLock<Arc<RuleSet>> = OnceLock::new();
        BUILT
            .get_or_init(|| {
                let mut set = RuleSet::default();
                set.add_pack()
                    .unwrap_or_else(|e| panic!("the built-in rule pack is broken: {e}"));
                Arc::new(set)
            })
            .clone()
    }

    /// Adds the built-in pack: every operator's rules, numbered on from the
    /// operator before.
    pub fn add_pack(&mut self) -> Result<(), RulesError> {
        let mut before = 0;
        for operator in pack::PACK {
            let mut rules = file::parse(operator.health, &Origin::Builtin(operator.name))?;
            for rule in &mut rules {
                rule.index += before;
            }
            before = rules.iter().map(|r| r.index).max().unwrap_or(before);
            self.add(rules);
        }
        Ok(())
    }

    /// Adds the rules of one source; a rule with the selector of an earlier
    /// one replaces it.
    pub fn add_source(&mut self, text: &str, origin: Origin) -> Result<(), RulesError> {
        self.add(file::parse(text, &origin)?);
        Ok(())
    }

    fn add(&mut self, rules: Vec<Rule>) {
        for rule in rules {
            match self.rules.iter().position(|r| r.selector == rule.selector) {
                Some(i) => {
                    let old = std::mem::replace(&mut self.rules[i], rule);
                    let new = &mut self.rules[i];
                    new.overrides = old.overrides;
                    new.overrides.push(old.origin);
                }
                None => self.rules.push(rule),
            }
        }
    }

    /// The rules in effect, sorted by group and kind.
    pub fn rules(&self) -> Vec<&Rule> {
        let mut rules: Vec<&Rule> = self.rules.iter().collect();
        rules.sort_by(|a, b| a.selector.cmp(&b.selector));
        rules
    }

    /// The most specific rule for a group and kind; on a tie the later
    /// origin wins.
    pub fn rule_for(&self, group: &str, kind: &str) -> Option<&Rule> {
        self.rules
            .iter()
            .filter_map(|r| Some((r.selector.matches(group, kind)?, &r.origin, r)))
            .max_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
            .map(|(_, _, r)| r)
    }

    /// Whether the rule for this kind reads the time: its verdict may
    /// change while the object does not.
    pub fn reads_the_time(&self, group: &str, kind: &str) -> bool {
        self.rule_for(group, kind)
            .is_some_and(|r| r.checks.iter().any(file::Check::reads_the_time))
    }

    /// The verdict of the first check of the object's rule that holds, or
    /// None: no rule, no check held, or only the metadata was read.
    pub fn judge(&self, obj: &Object, now: Timestamp) -> Option<Judgement> {
        if obj.metadata_only {
            return None;
        }
        let rule = self.rule_for(obj.group(), obj.kind())?;
        let scope = cel::Scope::new(obj, now);
        for (i, check) in rule.checks.iter().enumerate() {
            match check.holds(&scope) {
                Ok(false) => continue,
                Ok(true) => {
                    let mut j = check.judgement(&scope);
                    if j.message.is_empty() {
                        // A built-in rule speaks in the object's own words
                        // (`status.state is pending`); a user's rule is
                        // named, so that its author finds it.
                        j.message = match (&rule.origin, check.when.as_ref()) {
                            (Origin::Builtin(_), Some(when)) => own_words(obj, &when.source),
                            _ => None,
                        }
                        .unwrap_or_else(|| {
                            format!(
                                "health rule {} for {} ({})",
                                rule.index, rule.selector, rule.origin
                            )
                        });
                    }
                    return Some(j);
                }
                Err(e) => {
                    return Some(Judgement::new(
                        Verdict::Unknown,
                        Lifecycle::HealthRuleError,
                        format!(
                            "health rule {} for {} ({}), check {}: {e}",
                            rule.index,
                            rule.selector,
                            rule.origin,
                            i + 1
                        ),
                    ));
                }
            }
        }
        None
    }
}

/// What the object says in the field a check reads (`object.status.?state`
/// in its `when`): `status.state is pending`, or a condition it names as
/// the condition cites itself. None when the check reads neither.
fn own_words(obj: &Object, when: &str) -> Option<String> {
    if let Some(start) = when.find("object.status") {
        let rest = &when[start + "object.".len()..];
        let taken: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '?' | '_'))
            .collect();
        let mut segments: Vec<&str> = taken
            .split('.')
            .map(|s| s.trim_start_matches('?'))
            .filter(|s| !s.is_empty())
            .collect();
        // `….orValue("")`, `….size()`: a method, not a field.
        if rest[taken.len()..].starts_with('(') {
            segments.pop();
        }
        let path = segments.join(".");
        let pointer = format!("/{}", path.replace('.', "/"));
        let value = match obj.at(&pointer)? {
            serde_json::Value::String(s) if !s.is_empty() => s.clone(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return None,
        };
        return Some(format!("{path} is {value}"));
    }
    let quoted = when.split(['"', '\'']).nth(1).filter(|_| {
        ["condition(", "isTrue(", "isFalse(", "cite("]
            .iter()
            .any(|f| when.contains(f))
    })?;
    crate::verdict::conditions::find(&obj.conditions(), quoted)
        .map(crate::verdict::conditions::cite)
}
