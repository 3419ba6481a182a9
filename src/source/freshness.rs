//! How fresh a list must be. A list without a `resourceVersion` is a
//! consistent read: before the API server answers from its watch cache it
//! asks etcd for the current revision, a round trip that costs the servers
//! more than a small list itself. So only the command's first list of a
//! namespace in each group version is consistent; the others of that group
//! version ask for a state no older than what that one saw
//! (`resourceVersionMatch=NotOlderThan`), which the cache serves without
//! asking etcd. Every list is still at least as new as the command's own
//! start: what was applied before it is seen. A namespace sweep or a search
//! of every type costs the servers about a third less CPU
//! (docs/performance.md).
//!
//! A floor is shared by a group version only: one API server (or an
//! aggregated one) serves it, from one store. Events never share one,
//! since clusters keep them in an etcd of their own
//! (`--etcd-servers-overrides`), where revisions count apart; nor do lists
//! across namespaces, where encoding the answer is most of the cost and a
//! floor measured no cheaper; nor do a watch's lists (`Api::consistent`).
//! A list whose floor draws an answer the floor may cause (too large for
//! the cache after its wait, a parameter the server does not know) is
//! asked again without it, and that group version is read consistently for
//! the rest of the command. resourceVersions are opaque by the API's
//! contract: sharing one within a group version is an assumption, true of
//! kube-apiserver's types and custom resources, not of a resource moved to
//! an etcd of its own (docs/performance.md says what that costs).

use std::collections::HashMap;
use std::sync::Mutex;

use super::read::{ApiError, Read, query_escape};

/// The floor of each group version: the `resourceVersion` of its first
/// consistent list, or refused.
#[derive(Default)]
pub struct Floors {
    known: Mutex<HashMap<String, Floor>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Floor {
    Known(String),
    Refused,
}

impl Floors {
    /// The query that asks the first page of `read` to be no older than its
    /// group version's floor; `None` when it has none yet (or may not).
    pub fn query(&self, read: &Read) -> Option<String> {
        let key = key(read)?;
        match self.known.lock().ok()?.get(&key)? {
            Floor::Known(rv) => Some(format!(
                "resourceVersion={}&resourceVersionMatch=NotOlderThan",
                query_escape(rv)
            )),
            Floor::Refused => None,
        }
    }

    /// What a consistent first page of `read` answered: the floor of its
    /// group version, unless it has one.
    pub fn learn(&self, read: &Read, resource_version: &str) {
        let Some(key) = key(read) else { return };
        if resource_version.is_empty() {
            return;
        }
        if let Ok(mut known) = self.known.lock() {
            known
                .entry(key)
                .or_insert_with(|| Floor::Known(resource_version.to_string()));
        }
    }

    /// The server refused the floor of `read`'s group version: none is
    /// asked of it again.
    pub fn refuse(&self, read: &Read) {
        if let (Some(key), Ok(mut known)) = (key(read), self.known.lock()) {
            known.insert(key, Floor::Refused);
        }
    }
}

/// Whether `error`, the answer to a list with a floor, may be the server
/// refusing the floor, so that the list is asked again without it: its
/// watch cache did not reach the version in time (a 504 after its 3 s
/// wait, or the request's own deadline first), it no longer holds it
/// (410), or it does not take the parameters (400, or another answer of an
/// aggregated server). Not what the floor cannot cause: a refusal of
/// access, a type not served, a server out of reach.
pub fn may_be_refused(error: &ApiError) -> bool {
    !matches!(
        error,
        ApiError::Forbidden(_)
            | ApiError::Unauthorized(_)
            | ApiError::Credential(_)
            | ApiError::NotFound
            | ApiError::Missing
            | ApiError::Unreachable(_)
            | ApiError::Tls(_)
            | ApiError::TooLarge(_)
    )
}

/// The group version a floor is shared by (and a read's rank is counted
/// in, see `super::plan::firsts_of_group_versions_first`); none for
/// events, and none for
/// lists across namespaces: there the answer's encoding is most of the
/// server's cost, and measured with a floor their `status -A` cost the API
/// server more CPU, not less (docs/performance.md).
pub fn key(read: &Read) -> Option<String> {
    if read.is_events() || read.namespace.is_none() {
        return None;
    }
    Some(format!("{}/{}", read.rt.group, read.rt.version))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list in namespace `shop` of a type of the test catalog (what a
    /// v1.36 API server serves, and a custom resource).
    fn read(group: &str, kind: &str) -> Read {
        let catalog = crate::catalog::tests::catalog();
        Read::list(catalog.by_kind(group, kind).unwrap(), Some("shop"))
    }

    #[test]
    fn the_first_list_of_a_group_version_is_consistent_and_sets_the_floor_of_the_others() {
        let floors = Floors::default();
        let deployments = read("apps", "Deployment");
        let sets = read("apps", "ReplicaSet");
        assert_eq!(floors.query(&deployments), None);
        floors.learn(&deployments, "4821");
        let asked = "resourceVersion=4821&resourceVersionMatch=NotOlderThan";
        assert_eq!(floors.query(&sets).as_deref(), Some(asked));
        // A later consistent answer does not move it.
        floors.learn(&sets, "4900");
        assert_eq!(floors.query(&deployments).as_deref(), Some(asked));
        // Another group version has its own.
        assert_eq!(floors.query(&read("example.com", "Widget")), None);
    }

    #[test]
    fn events_never_share_a_floor() {
        let floors = Floors::default();
        floors.learn(&read("", "Pod"), "10");
        for events in [read("", "Event"), read("events.k8s.io", "Event")] {
            assert_eq!(floors.query(&events), None);
            floors.learn(&events, "99");
            assert_eq!(floors.query(&events), None);
        }
        let asked = floors.query(&read("", "ConfigMap")).unwrap();
        assert!(asked.starts_with("resourceVersion=10&"), "{asked}");
    }

    #[test]
    fn lists_across_namespaces_never_take_a_floor() {
        let floors = Floors::default();
        let mut across = read("apps", "Deployment");
        across.namespace = None;
        floors.learn(&across, "10");
        assert_eq!(floors.query(&across), None);
        floors.learn(&read("apps", "Deployment"), "11");
        assert_eq!(floors.query(&across), None);
    }

    #[test]
    fn a_refused_floor_is_never_asked_again_and_an_empty_version_is_no_floor() {
        let floors = Floors::default();
        let crs = read("example.com", "Widget");
        floors.learn(&crs, "");
        assert_eq!(floors.query(&crs), None);
        floors.learn(&crs, "7");
        floors.refuse(&crs);
        floors.learn(&crs, "8");
        assert_eq!(floors.query(&crs), None);
    }

    #[test]
    fn a_floored_list_is_asked_again_after_any_answer_the_floor_may_cause() {
        for error in [
            ApiError::Timeout,
            ApiError::Gone,
            ApiError::Other(400, "bad".into()),
            ApiError::Other(500, "invalid resource version".into()),
        ] {
            assert!(may_be_refused(&error), "{error:?}");
        }
        for error in [
            ApiError::Forbidden("no".into()),
            ApiError::NotFound,
            ApiError::Unreachable("down".into()),
        ] {
            assert!(!may_be_refused(&error), "{error:?}");
        }
    }
}
