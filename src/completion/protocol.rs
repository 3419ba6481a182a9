//! kubectl's plugin completion protocol as pure functions: which word is
//! being completed and from what ([`parse`]), and the answer in cobra's
//! format ([`answer`]): one candidate a line (`value` or `value\tdescription`),
//! then `:DIRECTIVE`.
//!
//! kubectl 1.26 and later run `kubectl_complete-reconcile ARGS... PARTIAL`
//! for `kubectl reconcile ARGS... PARTIAL<TAB>`; the helper runs
//! `kubectl-reconcile __complete ARGS... PARTIAL`. Everything about
//! subcommands and flags is read from the clap definitions, so a new
//! subcommand or flag completes without a change here.

use std::collections::BTreeMap;

use clap::{Arg, ArgAction, Command, ValueHint};

use crate::catalog::Catalog;

/// The hidden first argument that selects the protocol.
pub const PROTOCOL_ARG: &str = "__complete";

/// cobra's `ShellCompDirective` bits.
pub mod directive {
    /// The shell may complete file names when there is no candidate.
    pub const DEFAULT: u32 = 0;
    /// No space after the completion.
    pub const NO_SPACE: u32 = 2;
    /// No file names, even without candidates.
    pub const NO_FILE_COMP: u32 = 4;
    /// Only directory names.
    pub const FILTER_DIRS: u32 = 16;
}

/// One completion choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub help: Option<String>,
}

impl Candidate {
    pub fn plain(value: impl Into<String>) -> Candidate {
        Candidate {
            value: value.into(),
            help: None,
        }
    }
}

/// Where the candidates for the word under the cursor come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Known from the clap definitions: subcommands, flags, enum values.
    Fixed(Vec<Candidate>),
    /// Paths, completed by the shell.
    Files,
    /// Directories, completed by the shell.
    Dirs,
    /// Free text: nothing to offer.
    Nothing,
    Namespaces,
    Contexts,
    /// A comma-separated list of contexts (`--contexts a,b,`): the words
    /// already given, then each context not among them.
    ContextList,
    Clusters,
    Users,
    /// Resource types, from discovery (or the snapshot's kinds).
    Types,
    /// Names of objects of a type, as the user spelled the type.
    Names {
        type_: String,
    },
}

/// A parsed completion request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub source: Source,
    /// Put before every candidate: `deploy/`, `deploy,`. Not `--output=`:
    /// a `--flag=value` is answered with bare values, as cobra answers
    /// (the shells keep the `--flag=` part themselves).
    pub prefix: String,
    /// What the user typed after the prefix; candidates start with it.
    pub partial: String,
    /// Flags already on the line, by clap id (`namespace`, `context`, ...).
    pub flags: BTreeMap<String, Vec<String>>,
}

impl Request {
    /// The last value given for a flag, by clap id.
    pub fn flag(&self, id: &str) -> Option<&str> {
        self.flags
            .get(id)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    pub fn all_flag(&self, id: &str) -> &[String] {
        self.flags.get(id).map(Vec::as_slice).unwrap_or_default()
    }
}

/// Reads a partial command line (`words`: every word after `__complete`,
/// the last one being the word under the cursor, possibly empty). `root`
/// must be built ([`Command::build`]) so that global flags are known to
/// the subcommands.
pub fn parse(root: &Command, words: &[String]) -> Request {
    let (current, done) = match words.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let mut cmd = root;
    let mut chose_subcommand = false;
    let mut flags: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut positionals: Vec<String> = Vec::new();
    let mut pending: Option<&Arg> = None;
    let mut dashdash = false;
    for word in done {
        if let Some(arg) = pending.take() {
            record(&mut flags, arg, word);
            continue;
        }
        if dashdash {
            positionals.push(word.clone());
        } else if word == "--" {
            dashdash = true;
        } else if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if let Some(arg) = find_long(cmd, name) {
                match (takes_value(arg), inline) {
                    (true, Some(v)) => record(&mut flags, arg, v),
                    (true, None) => pending = Some(arg),
                    (false, _) => record(&mut flags, arg, "true"),
                }
            }
        } else if word.len() > 1 && word.starts_with('-') {
            // -A, -n NS, -nNS, -n=NS, and clusters of switches such as -Al.
            for (i, c) in word[1..].char_indices() {
                let Some(arg) = find_short(cmd, c) else { break };
                if takes_value(arg) {
                    let rest = &word[1 + i + c.len_utf8()..];
                    let rest = rest.strip_prefix('=').unwrap_or(rest);
                    if rest.is_empty() {
                        pending = Some(arg);
                    } else {
                        record(&mut flags, arg, rest);
                    }
                    break;
                }
                record(&mut flags, arg, "true");
            }
        } else if !chose_subcommand && let Some(sub) = find_subcommand(cmd, word) {
            cmd = sub;
            chose_subcommand = true;
        } else {
            positionals.push(word.clone());
        }
    }

    let request = |source, prefix: &str, partial: &str, flags| Request {
        source,
        prefix: prefix.to_string(),
        partial: partial.to_string(),
        flags,
    };
    if let Some(arg) = pending {
        return request(value_source(arg), "", current, flags);
    }
    if !dashdash
        && let Some(long) = current.strip_prefix("--")
        && let Some((name, value)) = long.split_once('=')
    {
        let source = find_long(cmd, name).map_or(Source::Nothing, value_source);
        return request(source, "", value, flags);
    }
    if !dashdash && current.starts_with('-') {
        return request(Source::Fixed(flag_names(cmd, &flags)), "", current, flags);
    }
    if !chose_subcommand {
        if !positionals.is_empty() {
            return request(Source::Nothing, "", current, flags);
        }
        return request(Source::Fixed(subcommands(cmd)), "", current, flags);
    }
    let positional_args: Vec<&Arg> = cmd.get_positionals().collect();
    if positional_args.iter().any(|a| a.get_id() == "targets") {
        return targets(&positionals, current, flags);
    }
    // Other positionals (e.g. `completion SHELL`): by position.
    match positional_args.get(positionals.len()) {
        Some(arg) => request(value_source(arg), "", current, flags),
        None => request(Source::Nothing, "", current, flags),
    }
}

/// `TYPE/NAME`, `TYPE NAME...` and `TYPE,TYPE`, as kubectl completes them:
/// a type first, then names of that type.
fn targets(positionals: &[String], current: &str, flags: BTreeMap<String, Vec<String>>) -> Request {
    let (source, prefix) = if let Some((type_, _)) = current.split_once('/') {
        (
            Source::Names {
                type_: type_.to_string(),
            },
            format!("{type_}/"),
        )
    } else if let Some(first) = positionals.first()
        && !first.contains('/')
    {
        if first.contains(',') {
            // Names only go with a single type.
            (Source::Nothing, String::new())
        } else {
            (
                Source::Names {
                    type_: first.clone(),
                },
                String::new(),
            )
        }
    } else {
        let prefix = current.rfind(',').map_or("", |i| &current[..=i]);
        (Source::Types, prefix.to_string())
    };
    Request {
        partial: current[prefix.len()..].to_string(),
        source,
        prefix,
        flags,
    }
}

fn record(flags: &mut BTreeMap<String, Vec<String>>, arg: &Arg, value: &str) {
    flags
        .entry(arg.get_id().to_string())
        .or_default()
        .push(value.to_string());
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn find_long<'a>(cmd: &'a Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name)
            || a.get_all_aliases()
                .is_some_and(|aliases| aliases.contains(&name))
    })
}

fn find_short(cmd: &Command, c: char) -> Option<&Arg> {
    cmd.get_arguments().find(|a| a.get_short() == Some(c))
}

fn find_subcommand<'a>(cmd: &'a Command, name: &str) -> Option<&'a Command> {
    cmd.get_subcommands()
        .find(|s| s.get_name() == name || s.get_all_aliases().any(|a| a == name))
}

/// The first line of a help text.
fn summary(help: Option<&clap::builder::StyledStr>) -> Option<String> {
    let text = help?.to_string();
    let line = text.lines().next()?.trim().trim_end_matches('.');
    (!line.is_empty()).then(|| line.to_string())
}

/// Where the value of a flag (or a positional) comes from.
fn value_source(arg: &Arg) -> Source {
    match arg.get_id().as_str() {
        "namespace" => return Source::Namespaces,
        "context" => return Source::Contexts,
        "contexts" => return Source::ContextList,
        "cluster" => return Source::Clusters,
        "user" => return Source::Users,
        _ => {}
    }
    let values: Vec<Candidate> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| Candidate {
            value: v.get_name().to_string(),
            help: summary(v.get_help()),
        })
        .collect();
    if !values.is_empty() {
        return Source::Fixed(values);
    }
    match arg.get_value_hint() {
        ValueHint::FilePath | ValueHint::AnyPath | ValueHint::ExecutablePath => Source::Files,
        ValueHint::DirPath => Source::Dirs,
        _ => Source::Nothing,
    }
}

/// Subcommands, with their one-line help.
fn subcommands(cmd: &Command) -> Vec<Candidate> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| Candidate {
            value: s.get_name().to_string(),
            help: summary(s.get_about()),
        })
        .collect()
}

/// `--long` and `-s` forms of the flags not given yet (or repeatable).
fn flag_names(cmd: &Command, given: &BTreeMap<String, Vec<String>>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        if arg.is_positional() || arg.is_hide_set() {
            continue;
        }
        let repeatable = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count);
        if given.contains_key(arg.get_id().as_str()) && !repeatable {
            continue;
        }
        let help = summary(arg.get_help());
        if let Some(long) = arg.get_long() {
            out.push(Candidate {
                value: format!("--{long}"),
                help: help.clone(),
            });
        }
        if let Some(short) = arg.get_short() {
            out.push(Candidate {
                value: format!("-{short}"),
                help,
            });
        }
    }
    out
}

/// How a type is offered: its plural where that names it alone (`pods`,
/// `deployments`), else `plural.group`; a short name or the singular when
/// that is what the user started typing (`sts`, `deploy`). Only types that
/// can be listed.
pub fn type_names(catalog: &Catalog, partial: &str) -> Vec<Candidate> {
    let mut out: Vec<String> = Vec::new();
    for t in catalog.types.iter().filter(|t| t.can("list")) {
        let shared = catalog
            .types
            .iter()
            .filter(|o| o.plural == t.plural && o.can("list"))
            .count()
            > 1;
        let name = if shared {
            t.full_name()
        } else {
            t.plural.clone()
        };
        let spelling = if name.starts_with(partial) {
            Some(name)
        } else {
            t.short_names
                .iter()
                .chain(std::iter::once(&t.singular))
                .find(|s| s.starts_with(partial))
                .map(|s| {
                    if shared {
                        format!("{s}.{}", t.group)
                    } else {
                        s.clone()
                    }
                })
        };
        if let Some(spelling) = spelling {
            out.push(spelling);
        }
    }
    out.sort();
    out.dedup();
    out.into_iter().map(Candidate::plain).collect()
}

/// A name as Kubernetes and kubeconfig spell them: letters, digits and
/// `-._:@/=+,`, nothing a shell would expand or a terminal would act on.
fn is_plain_name(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:@/=+,".contains(c))
}

/// What to print: the candidates that start with the partial word, with the
/// prefix put back, then cobra's directive.
pub fn answer(request: &Request, candidates: &[Candidate]) -> String {
    let mut out = String::new();
    for c in candidates {
        if !c.value.starts_with(&request.partial) {
            continue;
        }
        // What the cluster names is offered only when it is a name a
        // shell can take as it is: no `$(…)`, no spaces, no bidi or
        // invisible characters. A shortName such as `$(touch /tmp/x)` from
        // a hostile discovery document is dropped, not offered.
        let from_cluster = matches!(
            request.source,
            Source::Namespaces
                | Source::Contexts
                | Source::ContextList
                | Source::Clusters
                | Source::Users
                | Source::Types
                | Source::Names { .. }
        );
        if from_cluster && !is_plain_name(&c.value) {
            continue;
        }
        let value: String = c.value.chars().filter(|ch| !ch.is_control()).collect();
        out.push_str(&request.prefix);
        out.push_str(&value);
        if let Some(help) = &c.help {
            // A description: shown, never run; made inert as everywhere.
            let help = crate::escape::escape(help).replace('\t', " ");
            out.push('\t');
            out.push_str(&help);
        }
        out.push('\n');
    }
    let mut directive = match request.source {
        Source::Files => directive::DEFAULT,
        Source::Dirs => directive::FILTER_DIRS,
        _ => directive::NO_FILE_COMP,
    };
    // `jsonpath=` is not a whole word: no space after it, as cobra says.
    if out
        .lines()
        .any(|l| l.split('\t').next().is_some_and(|v| v.ends_with('=')))
    {
        directive |= directive::NO_SPACE;
    }
    out.push_str(&format!(":{directive}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn req(line: &str) -> Request {
        let mut root = crate::cli::Cli::command();
        root.build();
        // A trailing space means the cursor is on a new, empty word.
        let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if line.ends_with(' ') || line.is_empty() {
            words.push(String::new());
        }
        parse(&root, &words)
    }

    #[test]
    fn a_candidate_that_ends_in_an_equals_sign_asks_for_no_space() {
        let r = req("status -o jsonp");
        let Source::Fixed(c) = &r.source else {
            unreachable!()
        };
        assert_eq!(answer(&r, c), "jsonpath=\njsonpath-file=\n:6\n");
        let r = req("status -o ya");
        let Source::Fixed(c) = &r.source else {
            unreachable!()
        };
        assert_eq!(answer(&r, c), "yaml\n:4\n");
    }

    #[test]
    fn names_a_shell_would_run_or_a_terminal_hide_are_never_offered() {
        let request = req("status ");
        let request = Request {
            source: Source::Types,
            ..request
        };
        let offered = answer(
            &request,
            &[
                Candidate::plain("deployments"),
                Candidate::plain("$(touch /tmp/x)"),
                Candidate::plain("wid\u{202e}gets"),
                Candidate::plain("caches.cache.example.com"),
            ],
        );
        assert_eq!(offered, "deployments\ncaches.cache.example.com\n:4\n");
    }

    fn values(r: &Request) -> Vec<String> {
        match &r.source {
            Source::Fixed(c) => c
                .iter()
                .filter(|c| c.value.starts_with(&r.partial))
                .map(|c| c.value.clone())
                .collect(),
            other => panic!("not fixed: {other:?}"),
        }
    }

    #[test]
    fn subcommands_come_from_the_clap_definition() {
        let r = req("");
        let subs = values(&r);
        let defined: Vec<String> = crate::cli::Cli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        assert!(defined.len() >= 3, "{defined:?}");
        for name in defined
            .iter()
            .map(String::as_str)
            .chain(["tree", "status", "completion"])
        {
            assert!(subs.contains(&name.to_string()), "{name} not in {subs:?}");
        }
        let r = req("-n shop ");
        assert!(values(&r).contains(&"tree".to_string()));
        assert_eq!(r.flag("namespace"), Some("shop"));
        assert_eq!(values(&req("tr")), vec!["tree"]);
    }

    #[test]
    fn flags_of_the_subcommand_and_the_globals() {
        let r = req("tree --ow");
        assert_eq!(values(&r), vec!["--owners"]);
        let all = values(&req("tree -"));
        for f in [
            "--owners",
            "--all",
            "-l",
            "--selector",
            "-n",
            "--namespace",
            "--context",
            "--help",
        ] {
            assert!(all.contains(&f.to_string()), "{f} in {all:?}");
        }
        let again = values(&req("tree --owners --o"));
        assert!(!again.contains(&"--owners".to_string()), "{again:?}");
        assert!(again.contains(&"--output".to_string()));
        assert!(
            values(&req("tree -f a -f b --fi")).contains(&"--filename".to_string()),
            "repeatable"
        );
        assert!(values(&req("--")).contains(&"--version".to_string()));
    }

    #[test]
    fn flag_values() {
        assert_eq!(req("tree -n ").source, Source::Namespaces);
        assert_eq!(values(&req("-n")), vec!["-n"]);
        assert_eq!(req("tree --namespace ").source, Source::Namespaces);
        assert_eq!(req("--context ").source, Source::Contexts);
        assert_eq!(req("status --contexts ").source, Source::ContextList);
        assert_eq!(req("status --contexts=a,").source, Source::ContextList);
        assert_eq!(req("status --cluster ").source, Source::Clusters);
        assert_eq!(req("status --user ").source, Source::Users);
        assert_eq!(req("tree --kubeconfig ").source, Source::Files);
        assert_eq!(req("tree -f ").source, Source::Files);
        assert_eq!(req("tree --cache-dir ").source, Source::Dirs);
        assert_eq!(req("tree -l ").source, Source::Nothing);
        let r = req("status -o ");
        assert_eq!(
            values(&r),
            vec![
                "text",
                "wide",
                "name",
                "json",
                "yaml",
                "dot",
                "mermaid",
                "jsonpath=",
                "jsonpath-file=",
                "custom-columns=",
                "custom-columns-file="
            ]
        );
        // Bare values after `--flag=`, as cobra answers.
        let r = req("status --output=y");
        assert_eq!(
            (r.prefix.as_str(), values(&r)),
            ("", vec!["yaml".to_string()])
        );
        assert_eq!(answer(&r, &[Candidate::plain("yaml")]), "yaml\n:4\n");
        let r = req("status --color ");
        assert_eq!(values(&r), vec!["auto", "always", "never"]);
        let r = req("completion ");
        assert_eq!(
            values(&r),
            vec!["bash", "zsh", "fish", "powershell", "kubectl"]
        );
        assert_eq!(req("completion bash ").source, Source::Nothing);
        assert_eq!(
            req("completion kubectl --install-dir ").source,
            Source::Dirs
        );
    }

    #[test]
    fn targets_like_kubectl() {
        assert_eq!(req("tree ").source, Source::Types);
        let r = req("-n shop tree deploy/w");
        assert_eq!(
            (r.source.clone(), r.prefix.as_str(), r.partial.as_str()),
            (
                Source::Names {
                    type_: "deploy".into()
                },
                "deploy/",
                "w"
            )
        );
        assert_eq!(r.flag("namespace"), Some("shop"));
        let r = req("status deploy ");
        assert_eq!(
            r.source,
            Source::Names {
                type_: "deploy".into()
            }
        );
        assert_eq!(r.prefix, "");
        let r = req("status deploy web a");
        assert_eq!(
            (r.source.clone(), r.partial.as_str()),
            (
                Source::Names {
                    type_: "deploy".into()
                },
                "a"
            )
        );
        assert_eq!(
            req("tree deploy/web ").source,
            Source::Types,
            "the next TYPE/NAME"
        );
        let r = req("status deploy,st");
        assert_eq!(
            (r.source.clone(), r.prefix.as_str(), r.partial.as_str()),
            (Source::Types, "deploy,", "st")
        );
        assert_eq!(req("status deploy,sts ").source, Source::Nothing);
        let r = req("tree --owners -A -nfoo --context=kind pod/");
        assert_eq!(
            r.source,
            Source::Names {
                type_: "pod".into()
            }
        );
        assert_eq!(r.flag("all_namespaces"), Some("true"));
        assert_eq!(r.flag("namespace"), Some("foo"));
        assert_eq!(r.flag("context"), Some("kind"));
        assert_eq!(
            req("tree -- -weird ").source,
            Source::Names {
                type_: "-weird".into()
            }
        );
        assert_eq!(req("nosuchcommand ").source, Source::Nothing);
    }

    #[test]
    fn the_ids_the_lookups_rely_on_exist() {
        let mut root = crate::cli::Cli::command();
        root.build();
        let tree = root.find_subcommand("tree").unwrap();
        for id in [
            "namespace",
            "all_namespaces",
            "context",
            "cluster",
            "user",
            "kubeconfig",
            "as_user",
            "as_group",
            "snapshot",
            "cache_dir",
            "targets",
        ] {
            assert!(tree.get_arguments().any(|a| a.get_id() == id), "{id}");
        }
    }

    #[test]
    fn types_by_the_names_kubectl_accepts() {
        let cat = crate::catalog::tests::catalog();
        let names =
            |p: &str| -> Vec<String> { type_names(&cat, p).into_iter().map(|c| c.value).collect() };
        assert_eq!(
            names(""),
            vec![
                "configmaps",
                "deployments.apps",
                "deployments.other.io",
                "events",
                "events.events.k8s.io",
                "gadgets",
                "nodes",
                "pods",
                "replicasets",
                "widgets"
            ]
        );
        assert_eq!(names("rs"), vec!["rs"]);
        assert_eq!(
            names("deploy"),
            vec!["deployments.apps", "deployments.other.io"]
        );
        assert_eq!(names("wd"), vec!["wd"]);
        assert_eq!(names("no"), vec!["nodes"]);
    }

    #[test]
    fn answers_in_cobra_format() {
        let r = req("");
        let out = answer(
            &r,
            match &r.source {
                Source::Fixed(c) => c,
                _ => unreachable!(),
            },
        );
        assert!(
            out.contains(
                "tree\tOwner-reference tree under each target, with a verdict on every node\n"
            ),
            "{out}"
        );
        assert!(out.ends_with("\n:4\n"));
        let r = req("tree --kubeconfig ");
        assert_eq!(answer(&r, &[]), ":0\n", "file completion by the shell");
        let r = req("tree --cache-dir ");
        assert_eq!(answer(&r, &[]), ":16\n");
        let r = req("tree deploy/");
        assert_eq!(
            answer(
                &r,
                &[Candidate::plain("web"), Candidate::plain("api\u{1b}[31m")]
            ),
            "deploy/web\n:4\n",
            "a name with control characters from the cluster is not offered at all"
        );
    }
}
