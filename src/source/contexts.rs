//! The contexts of a fleet answer (`--contexts`, `--all-contexts`): read
//! from the kubeconfig, matched by name or shell glob, in the kubeconfig's
//! order. Nothing is sent.

use super::client::{Connection, read_kubeconfig, without_userinfo_text};

/// At most this many contexts in one fleet answer: far above a real
/// kubeconfig, a bound on a hostile one.
pub const MAX_CONTEXTS: usize = 1_000;

/// One context of the fleet, as the kubeconfig describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// The cluster's server as written, a password masked; empty when the
    /// kubeconfig names none.
    pub server: String,
}

/// The contexts the patterns name (every one when there is none), each
/// once, in the kubeconfig's order. A name that is not there, or a glob
/// that matches nothing, is an error that lists the contexts there are.
pub fn members(conn: &Connection, patterns: &[String]) -> anyhow::Result<Vec<Member>> {
    let config = read_kubeconfig(conn)?;
    let server_of = |cluster: &str| {
        config
            .clusters
            .iter()
            .find(|c| c.name == cluster)
            .and_then(|c| c.cluster.as_ref()?.server.as_deref())
            .map(without_userinfo_text)
            .unwrap_or_default()
    };
    let all: Vec<Member> = config
        .contexts
        .iter()
        .map(|c| Member {
            name: c.name.clone(),
            server: c
                .context
                .as_ref()
                .map(|c| server_of(&c.cluster))
                .unwrap_or_default(),
        })
        .collect();
    let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
    let chosen = choose(&names, patterns)?;
    if chosen.len() > MAX_CONTEXTS {
        anyhow::bail!(
            "{} contexts match, more than the {MAX_CONTEXTS} one answer asks\nhint: name fewer with --contexts",
            chosen.len()
        );
    }
    Ok(chosen.into_iter().map(|i| all[i].clone()).collect())
}

/// The indexes of `names` that the patterns match, in `names`' order.
fn choose(names: &[&str], patterns: &[String]) -> anyhow::Result<Vec<usize>> {
    let known = || {
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    if patterns.is_empty() {
        if names.is_empty() {
            anyhow::bail!(
                "the kubeconfig has no contexts\nhint: add one (kubectl config set-context), or pass --kubeconfig PATH"
            );
        }
        return Ok((0..names.len()).collect());
    }
    let mut chosen = vec![false; names.len()];
    for pattern in patterns {
        let mut any = false;
        for (i, name) in names.iter().enumerate() {
            if glob_matches(pattern, name) {
                chosen[i] = true;
                any = true;
            }
        }
        if !any {
            let what = if is_glob(pattern) {
                format!("no context matches {pattern}")
            } else {
                format!("context {pattern} does not exist in the kubeconfig")
            };
            anyhow::bail!("{what}\nhint: known contexts: {}", known());
        }
    }
    Ok((0..names.len()).filter(|&i| chosen[i]).collect())
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// A shell glob as `fnmatch` reads one: `*` any run of characters, `?`
/// one character, `[abc]`, `[a-z]` and `[!a]` one of a set; anything else
/// itself. Linear in the text for each star (the last star backtracks).
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    // Where the last star was, and the text position it matched up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => set_matches(&p, pi, t[ti]),
            Some(&c) if c == t[ti] => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ti += 1;
            }
            (None, Some((sp, st))) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `c` is in the set that opens at `p[open]`, and where the
/// pattern goes on after it; `None` when it is not. A `[` with no
/// closing `]` is the character itself.
fn set_matches(p: &[char], open: usize, c: char) -> Option<usize> {
    let mut i = open + 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let start = i;
    let mut found = false;
    while i < p.len() && (p[i] != ']' || i == start) {
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            found |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            found |= p[i] == c;
            i += 1;
        }
    }
    if i >= p.len() {
        return (c == '[').then_some(open + 1);
    }
    (found != negated).then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_the_shell_does() {
        let yes = [
            ("prod-*", "prod-eu"),
            ("prod-*", "prod-"),
            ("*", ""),
            ("*-eu-*", "prod-eu-1"),
            ("p?od", "prod"),
            ("prod-[ab]", "prod-b"),
            ("prod-[a-c]1", "prod-b1"),
            ("prod-[!a]", "prod-b"),
            ("kind-*", "kind-kind"),
            (
                "arn:aws:eks:*:cluster/*",
                "arn:aws:eks:eu-west-1:1234:cluster/web",
            ),
            ("a*b*c", "aXbYbZc"),
        ];
        for (p, t) in yes {
            assert!(glob_matches(p, t), "{p} should match {t}");
        }
        let no = [
            ("prod-*", "staging-eu"),
            ("prod", "prod-eu"),
            ("p?od", "pod"),
            ("prod-[ab]", "prod-c"),
            ("prod-[!a]", "prod-a"),
            ("a*b*c", "aXbYbZ"),
        ];
        for (p, t) in no {
            assert!(!glob_matches(p, t), "{p} should not match {t}");
        }
        // A long text of no match is answered at once.
        let long = "a".repeat(100_000);
        assert!(!glob_matches("*a*a*a*b", &long));
    }

    #[test]
    fn contexts_are_chosen_in_the_kubeconfigs_order_each_once() {
        let names = ["prod-us", "staging", "prod-eu", "dev"];
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(choose(&names, &p(&["prod-*", "prod-eu"])).unwrap(), [0, 2]);
        assert_eq!(choose(&names, &p(&["dev", "staging"])).unwrap(), [1, 3]);
        assert_eq!(choose(&names, &[]).unwrap(), [0, 1, 2, 3]);
        let err = choose(&names, &p(&["qa-*"])).unwrap_err().to_string();
        assert!(err.starts_with("no context matches qa-*"), "{err}");
        assert!(
            err.contains("known contexts: prod-us, staging, prod-eu, dev"),
            "{err}"
        );
        let err = choose(&names, &p(&["qa"])).unwrap_err().to_string();
        assert!(err.starts_with("context qa does not exist"), "{err}");
    }
}
