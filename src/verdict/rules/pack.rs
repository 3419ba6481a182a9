//! The built-in rule pack: one folder per operator under `rules/`, its
//! rules (`health.yaml`) beside the objects they are tested on
//! (`health_test.yaml`), as Argo CD keeps its health checks. Adding an
//! operator is one folder and one line of [`PACK`]; a test fails when a
//! folder is not listed.

/// One operator's folder under `rules/`.
#[derive(Debug)]
pub struct Operator {
    /// The folder: the project's name, lower-case kebab (`cert-manager`).
    pub name: &'static str,
    /// `health.yaml`: the rules for its kinds.
    pub health: &'static str,
    /// `health_test.yaml`: objects shaped like the ones it writes and the
    /// verdict each must get (`pack_tests.rs`).
    #[cfg(test)]
    pub cases: &'static str,
}

/// An operator by its folder's name.
macro_rules! operator {
    ($name:literal) => {
        Operator {
            name: $name,
            health: include_str!(concat!("../../../rules/", $name, "/health.yaml")),
            #[cfg(test)]
            cases: include_str!(concat!("../../../rules/", $name, "/health_test.yaml")),
        }
    };
}

/// Every operator of the pack. The order numbers the pack's rules (a
/// rule's `index`, as `rules -o json` and a rule's message give it), so a
/// new operator goes at the end.
pub const PACK: &[Operator] = &[
    operator!("flux"),
    operator!("argo-cd"),
    operator!("argo-workflows"),
    operator!("argo-rollouts"),
    operator!("cert-manager"),
    operator!("crossplane"),
    operator!("cluster-api"),
    operator!("knative"),
    operator!("kserve"),
    operator!("istio"),
    operator!("aws-ack"),
    operator!("config-connector"),
    operator!("strimzi"),
    operator!("cloudnative-pg"),
    operator!("spark-operator"),
    operator!("prometheus-operator"),
    operator!("longhorn"),
    operator!("gatekeeper"),
    operator!("vault-secrets-operator"),
    operator!("rook"),
    operator!("kubevirt"),
    operator!("flagger"),
    operator!("olm"),
    operator!("openshift"),
    operator!("kubeflow"),
    operator!("kueue"),
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::PACK;

    #[test]
    fn every_folder_under_rules_is_in_the_table_and_every_entry_has_one() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let folders: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_dir())
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let table: BTreeSet<String> = PACK.iter().map(|o| o.name.to_string()).collect();
        assert_eq!(table.len(), PACK.len(), "an operator is listed twice");
        let unlisted: Vec<&String> = folders.difference(&table).collect();
        let absent: Vec<&String> = table.difference(&folders).collect();
        assert!(
            unlisted.is_empty() && absent.is_empty(),
            "folders under rules/ missing from pack::PACK: {unlisted:?}; PACK entries without a folder: {absent:?}"
        );
        for name in &folders {
            for file in ["health.yaml", "health_test.yaml"] {
                assert!(
                    dir.join(name).join(file).is_file(),
                    "rules/{name} has no {file}"
                );
            }
        }
    }

    #[test]
    fn operators_are_named_in_lower_case_kebab() {
        for op in PACK {
            let kebab = !op.name.is_empty()
                && !op.name.starts_with('-')
                && !op.name.ends_with('-')
                && !op.name.contains("--")
                && op
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            assert!(kebab, "{}", op.name);
        }
    }
}
