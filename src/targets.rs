//! What the user asked about, before resolution: `TYPE/NAME`, `TYPE NAME...`,
//! `TYPE -l SELECTOR`, or identities read from manifests (`-f`).

use crate::model::{Object, Target};
use crate::verdict::Judged;
use crate::verdict::{Verdict, judge};

/// Where an answer looks, as `-n` and `-A` asked: one namespace, every
/// namespace, or (neither flag) the kubeconfig context's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Asked {
    Namespace(String),
    #[default]
    Context,
    All,
}

impl Asked {
    /// From the flags: `-A` wins over `-n`, as in kubectl.
    pub fn from_flags(namespace: Option<&str>, all_namespaces: bool) -> Asked {
        match (namespace, all_namespaces) {
            (_, true) => Asked::All,
            (Some(ns), false) => Asked::Namespace(ns.to_string()),
            (None, false) => Asked::Context,
        }
    }

    /// The scope, once the context's namespace is known.
    pub fn resolve(&self, context_namespace: &str) -> Scope {
        match self {
            Asked::Namespace(ns) => Scope::Namespace(ns.clone()),
            Asked::Context => Scope::Namespace(context_namespace.to_string()),
            Asked::All => Scope::AllNamespaces,
        }
    }

    /// The namespace `-n` named, unless `-A` was given too.
    pub fn named(&self) -> Option<&str> {
        match self {
            Asked::Namespace(ns) => Some(ns),
            Asked::Context | Asked::All => None,
        }
    }

    pub fn is_all(&self) -> bool {
        *self == Asked::All
    }
}

/// Where targets without a namespace of their own are looked for: [`Asked`]
/// with the context's namespace filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Namespace(String),
    AllNamespaces,
}

impl Scope {
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Scope::Namespace(ns) => Some(ns),
            Scope::AllNamespaces => None,
        }
    }
}

/// One requested target, spelled as the user spelled it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    /// `deploy/web`, or `deploy web`.
    Name { type_: String, name: String },
    /// `deployments` alone (every one in the namespace), or with `-l`.
    Type {
        type_: String,
        selector: Option<String>,
    },
    /// An object declared in a manifest.
    Manifest {
        api_version: String,
        kind: String,
        namespace: Option<String>,
        name: String,
    },
}

/// Parses positional targets and `-l` the way kubectl does.
pub fn parse(args: &[String], selector: Option<&str>) -> Result<Vec<TargetSpec>, String> {
    if args.is_empty() {
        return match selector {
            // A sweep whose roots the selector filters: see
            // `Settings::sweep_labels`.
            Some(_) | None => Ok(Vec::new()),
        };
    }
    if args.iter().any(|a| a.contains('/')) {
        if selector.is_some() {
            return Err("TYPE/NAME targets cannot be combined with a selector (-l)".into());
        }
        return args
            .iter()
            .map(|arg| match arg.split_once('/') {
                Some((t, n)) if !t.is_empty() && !n.is_empty() && !n.contains('/') => Ok(TargetSpec::Name { type_: t.into(), name: n.into() }),
                _ => Err(format!(
                    "\"{arg}\" is not TYPE/NAME; when one target is TYPE/NAME, all must be (e.g. deploy/web statefulset/db)"
                )),
            })
            .collect();
    }
    let (type_, names) = args.split_first().expect("not empty");
    if names.is_empty() {
        return Ok(vec![TargetSpec::Type {
            type_: type_.clone(),
            selector: selector.map(str::to_string),
        }]);
    }
    if selector.is_some() {
        return Err("give either names or a selector (-l), not both".into());
    }
    Ok(names
        .iter()
        .map(|n| TargetSpec::Name {
            type_: type_.clone(),
            name: n.clone(),
        })
        .collect())
}

/// The roots that are not converged, most severe first: what `why` with
/// no target explains, and what `status` reads in depth.
pub fn failing_roots(snap: &Judged<'_>, roots: &[Target]) -> Vec<Target> {
    let mut judged: Vec<(u8, &Object)> = roots
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => snap.get(uid),
            Target::Missing(_) => None,
        })
        .map(|o| (judge(o, snap).verdict, o))
        .filter(|(v, _)| *v != Verdict::Converged)
        .map(|(v, o)| (v.severity(), o))
        .collect();
    judged.sort_by(|(a, x), (b, y)| {
        b.cmp(a)
            .then((x.namespace(), x.kind(), x.name()).cmp(&(y.namespace(), y.kind(), y.name())))
    });
    judged
        .into_iter()
        .map(|(_, o)| Target::Found(o.uid.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn kubectl_target_forms() {
        assert_eq!(
            parse(&s(&["deploy/web", "sts/db"]), None).unwrap(),
            vec![
                TargetSpec::Name {
                    type_: "deploy".into(),
                    name: "web".into()
                },
                TargetSpec::Name {
                    type_: "sts".into(),
                    name: "db".into()
                }
            ]
        );
        assert_eq!(
            parse(&s(&["deploy", "web", "api"]), None).unwrap(),
            vec![
                TargetSpec::Name {
                    type_: "deploy".into(),
                    name: "web".into()
                },
                TargetSpec::Name {
                    type_: "deploy".into(),
                    name: "api".into()
                }
            ]
        );
        assert_eq!(
            parse(&s(&["deploy"]), Some("app=web")).unwrap(),
            vec![TargetSpec::Type {
                type_: "deploy".into(),
                selector: Some("app=web".into())
            }]
        );
        assert_eq!(parse(&s(&[]), None).unwrap(), vec![]);
    }

    #[test]
    fn mistakes_are_explained() {
        assert!(
            parse(&s(&["deploy/web", "api"]), None)
                .unwrap_err()
                .contains("all must be")
        );
        // `-l` alone filters a sweep (see `Settings::sweep_labels`).
        assert_eq!(parse(&s(&[]), Some("a=b")), Ok(vec![]));
        assert!(
            parse(&s(&["deploy", "web"]), Some("a=b"))
                .unwrap_err()
                .contains("not both")
        );
        assert!(parse(&s(&["deploy/"]), None).is_err());
    }
}
