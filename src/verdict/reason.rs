//! The reason a verdict or a finding gives: one type, one table of words.
//!
//! A reason is either a code the tool knows (it produces it, or a later
//! stage acts on it: the well-known words of Kubernetes' own controllers
//! and of the kubelet), grouped by the family of objects whose next steps
//! read it, or a [`Word`] a controller or a user's health rule wrote that
//! no stage acts on. [`Reason::of`] is the one way from a word to a reason,
//! so a known word is always its code: a step that matches
//! `Pod::CrashLoopBackOff` sees one a health rule wrote too. A reason
//! serialises as its word, the same CamelCase string as before there was a
//! type, so the JSON schema and every golden are unchanged.
//!
//! Each family's step file (`diagnose/steps/`) matches its family
//! exhaustively: a new code is a compile error until its step is decided.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Serialize, Serializer};

/// Declares the families: one enum each, with its words, and [`Reason`]
/// over them.
macro_rules! families {
    ($(
        $(#[$family_doc:meta])*
        $family:ident {
            $( $(#[$doc:meta])* $code:ident ),* $(,)?
        }
    )*) => {
        $(
            $(#[$family_doc])*
            // The variants are the words as Kubernetes spells them
            // (`Pod::PodFailed`), not names chosen to read well after the
            // enum's.
            #[allow(clippy::enum_variant_names)]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum $family {
                $( $(#[$doc])* $code, )*
            }

            impl $family {
                /// Every code of the family.
                pub const ALL: &'static [$family] = &[$($family::$code),*];

                /// The code as the reports write it.
                pub const fn as_str(self) -> &'static str {
                    match self {
                        $( $family::$code => stringify!($code), )*
                    }
                }
            }

            impl From<$family> for Reason {
                fn from(code: $family) -> Reason {
                    Reason::$family(code)
                }
            }

            impl PartialEq<$family> for Reason {
                fn eq(&self, code: &$family) -> bool {
                    matches!(self, Reason::$family(c) if c == code)
                }
            }
        )*

        /// A verdict's or a finding's reason: a code of a family, or a word
        /// no stage acts on.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Reason {
            $( $family($family), )*
            /// A controller's or a health rule's own word that is no code.
            Word(Word),
        }

        impl Reason {
            /// The reason as the reports write it.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Reason::$family(code) => code.as_str(), )*
                    Reason::Word(word) => &word.0,
                }
            }

            /// The word of a code; `None` for a [`Word`].
            fn code_str(&self) -> Option<&'static str> {
                match self {
                    $( Reason::$family(code) => Some(code.as_str()), )*
                    Reason::Word(_) => None,
                }
            }

            /// The family of a code, by name; `None` for a [`Word`].
            pub fn family(&self) -> Option<&'static str> {
                match self {
                    $( Reason::$family(_) => Some(stringify!($family)), )*
                    Reason::Word(_) => None,
                }
            }

            /// Every code of every family.
            pub fn codes() -> impl Iterator<Item = Reason> {
                std::iter::empty()
                    $( .chain($family::ALL.iter().map(|c| Reason::$family(*c))) )*
            }
        }
    };
}

families! {
    /// What the judge itself says of any kind: existence, generation,
    /// status written or not, deletion, rules.
    Lifecycle {
        /// A target that does not exist.
        NotFound,
        /// Nothing to reconcile, or only its metadata was read.
        Exists,
        /// A built-in kind whose status reports no problem.
        Current,
        /// A custom resource whose status no convention reads.
        NoHealthSignal,
        /// No controller wrote status past the grace.
        NoStatus,
        /// Waiting for a controller's first status.
        WaitingForController,
        /// The controller has not observed the latest spec.
        ObservedGenerationLag,
        /// A spec written after the controller last wrote the status, of a
        /// kind that reports no observedGeneration.
        SpecNotObserved,
        /// A spec the controller may not have seen, and no running
        /// controller found to have seen it.
        ControllerNotFound,
        /// A health rule that could not be evaluated.
        HealthRuleError,
        /// `Stalled=True` without a reason of its own.
        Stalled,
        /// `Reconciling=True` without a reason of its own.
        Reconciling,
        /// A status word that means work under way, not a word itself.
        InProgress,
        /// `status.readyToUse: false`.
        NotReadyToUse,
        /// A condition or status says Ready without a reason of its own.
        Ready,
        /// A kind that should report Ready and does not.
        NoReadyCondition,
        /// `status.error` or `status.errors`, or a container's exit.
        Error,
        /// Suspended on purpose by its spec.
        Suspended,
        /// A suspension the controller has not acted on yet.
        SuspendPending,
        /// Being deleted, nothing holding it.
        Deleting,
        /// Deletion held by finalizers.
        FinalizersPending,
        /// Foreground deletion waiting for dependents.
        WaitingForDependents,
        /// A Terminating namespace with content left.
        ContentRemaining,
        /// A Terminating namespace whose content could not be discovered.
        DiscoveryFailed,
        /// A Terminating namespace with a group version that does not parse.
        GroupVersionParsingFailed,
        /// A Terminating namespace whose content could not be deleted.
        ContentDeletionFailed,
        /// A status word that means failure, not a word itself.
        Failed,
        /// A CustomResourceDefinition whose names are served.
        Established,
        /// A CustomResourceDefinition not served yet.
        NotEstablished,
        /// A CustomResourceDefinition whose names another one claims.
        NamesNotAccepted,
        /// Waited past its grace on an object it names that does not exist.
        ReferenceNotFound,
        /// Waited past its grace on an object it names that is not ready.
        ReferenceNotReady,
    }

    /// Pods and their containers: images, crashes, probes, exits.
    Pod {
        ErrImagePull,
        ImagePullBackOff,
        InvalidImageName,
        ErrImageNeverPull,
        RegistryUnavailable,
        ImageInspectError,
        SignatureValidationFailed,
        CrashLoopBackOff,
        OOMKilled,
        PodFailed,
        RunContainerError,
        CreateContainerError,
        CreateContainerConfigError,
        PreStartHookError,
        ReadinessProbeFailed,
        /// A container whose startup probe does not pass (`started: false`).
        StartupProbeFailed,
        NotReady,
        Evicted,
        ContainerCreating,
        PodInitializing,
        /// An init container still running: the pod starts after it exits.
        InitContainerRunning,
        /// An init container that has run past its bound without exiting.
        InitContainerStuck,
        Running,
        Completed,
        Succeeded,
        PodStatusUnknown,
        ReadinessGatesPending,
        ReadinessGateNotSet,
        Unhealthy,
    }

    /// Nodes, and whether a pod finds one.
    Scheduling {
        Unschedulable,
        SchedulingGated,
        Scheduling,
        Scheduled,
        NodeNotReady,
        MemoryPressure,
        DiskPressure,
        PIDPressure,
        NetworkUnavailable,
        Cordoned,
        Misscheduled,
        NoMatchingNodes,
    }

    /// Workloads and rollouts: Deployments, ReplicaSets, StatefulSets,
    /// DaemonSets, Jobs, CronJobs, autoscalers, and the custom workloads
    /// above them.
    Workload {
        ProgressDeadlineExceeded,
        Paused,
        RolloutInProgress,
        PartitionedRollout,
        WaitingForPodDeletion,
        WaitingForReplicas,
        WaitingForReady,
        WaitingForAvailable,
        Available,
        NotAvailable,
        NotProgressing,
        ScalingDown,
        ScaledDown,
        Active,
        Complete,
        Completing,
        Backoff,
        BackoffLimitExceeded,
        DeadlineExceeded,
        PodFailurePolicy,
        MaxFailedIndexesExceeded,
        FailedIndexes,
        JobFailed,
        Suspending,
        Resuming,
        /// A run (`Succeeded=False`) that failed without a reason.
        RunFailed,
        LastJobFailed,
        /// A schedule whose runs the controller skips or misses.
        RunsSkipped,
        LastRunFailed,
        Scaling,
        Stable,
        ScalingDisabled,
        FailedGetResourceMetric,
        FailedGetPodsMetric,
        FailedGetExternalMetric,
        FailedGetObjectMetric,
    }

    /// Pods that cannot be created: admission, quota, ServiceAccounts.
    Admission {
        FailedCreate,
        ReplicaFailure,
    }

    /// Claims, volumes and their classes.
    Volume {
        Pending,
        Bound,
        NotBound,
        Lost,
        NoMatchingVolume,
        WaitingForFirstConsumer,
        Provisioning,
        ProvisioningFailed,
        ProvisionerNotResponding,
        Resizing,
        FileSystemResizePending,
    }

    /// Services, their endpoints and load balancers, Ingresses and routes,
    /// and the budgets over the pods they serve.
    Network {
        EndpointsReady,
        EndpointsNotRead,
        WaitingForEndpoints,
        NoEndpoints,
        NoReadyEndpoints,
        ScaledToZero,
        NamedPortNotFound,
        ExternalName,
        PendingLoadBalancer,
        Address,
        NoAddress,
        PendingAddress,
        WaitingForParents,
        SufficientPods,
        InsufficientPods,
        NoDisruptionsAllowed,
    }

    /// What `why` finds beside the verdicts.
    Aside {
        BarePod,
        NoOwner,
        OwnerGone,
        OwnerNotRead,
        /// An owner chain cut at its depth bound.
        ChainCut,
        InvalidOwner,
        SelectorOverlap,
        SelectorNearMiss,
        /// A key a container asks of a ConfigMap or Secret that lacks it.
        MissingKey,
        StaleStatus,
        NoStatusWriter,
        DisruptionsBlocked,
        Rollout,
        RolloutChange,
        ManagedBy,
        ManagerNotRead,
        Controller,
        ControllerDown,
        LeaseExpired,
    }
}

/// The codes the tool never writes itself: words Kubernetes' own
/// components write (the kubelet's container reasons, the Job controller's
/// failure reasons, a Node's conditions, an autoscaler's), which reach a
/// verdict as the component wrote them and which the next steps act on.
pub const FROM_KUBERNETES: &[Reason] = &[
    Reason::Pod(Pod::ErrImageNeverPull),
    Reason::Pod(Pod::RegistryUnavailable),
    Reason::Pod(Pod::ImageInspectError),
    Reason::Pod(Pod::SignatureValidationFailed),
    Reason::Pod(Pod::CreateContainerError),
    Reason::Pod(Pod::RunContainerError),
    Reason::Pod(Pod::PreStartHookError),
    Reason::Pod(Pod::OOMKilled),
    Reason::Pod(Pod::Succeeded),
    Reason::Scheduling(Scheduling::MemoryPressure),
    Reason::Scheduling(Scheduling::DiskPressure),
    Reason::Scheduling(Scheduling::PIDPressure),
    Reason::Scheduling(Scheduling::NetworkUnavailable),
    Reason::Workload(Workload::PodFailurePolicy),
    Reason::Workload(Workload::MaxFailedIndexesExceeded),
    Reason::Workload(Workload::FailedIndexes),
    Reason::Workload(Workload::FailedGetResourceMetric),
    Reason::Workload(Workload::FailedGetPodsMetric),
    Reason::Workload(Workload::FailedGetExternalMetric),
    Reason::Workload(Workload::FailedGetObjectMetric),
];

/// A word no stage acts on, as its controller or rule wrote it. Made only
/// by [`Reason::of`], so it is never the word of a code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Word(String);

impl Reason {
    /// The reason a word stands for: its code where it is one, else the
    /// word itself.
    pub fn of(word: &str) -> Reason {
        static CODES: OnceLock<HashMap<&'static str, Reason>> = OnceLock::new();
        let codes = CODES.get_or_init(|| {
            Reason::codes()
                .filter_map(|r| Some((r.code_str()?, r)))
                .collect::<HashMap<_, _>>()
        });
        codes
            .get(word)
            .cloned()
            .unwrap_or_else(|| Reason::Word(Word(word.to_string())))
    }

    /// The condition's reason, else `fallback`: how a controller's word
    /// becomes the verdict's reason.
    pub fn or(word: &str, fallback: impl Into<Reason>) -> Reason {
        if word.is_empty() {
            fallback.into()
        } else {
            Reason::of(word)
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Reason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Reason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reason, D::Error> {
        let word = String::deserialize(d)?;
        Ok(Reason::of(&word))
    }
}

/// Tests compare a reason with the word a report prints.
#[cfg(test)]
impl PartialEq<&str> for Reason {
    fn eq(&self, word: &&str) -> bool {
        self.as_str() == *word
    }
}

#[cfg(test)]
impl PartialEq<str> for Reason {
    fn eq(&self, word: &str) -> bool {
        self.as_str() == word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_word_is_one_code_and_reads_back_as_it() {
        let mut seen = HashSet::new();
        for code in Reason::codes() {
            assert!(
                seen.insert(code.as_str().to_string()),
                "{code} is in two families"
            );
            assert_eq!(Reason::of(code.as_str()), code);
            assert!(
                code.as_str()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase()),
                "{code} is CamelCase"
            );
        }
    }

    #[test]
    fn a_word_that_is_no_code_stays_as_written() {
        let r = Reason::of("InstallFailed");
        assert!(matches!(r, Reason::Word(_)));
        assert_eq!(r.as_str(), "InstallFailed");
        assert_eq!(Reason::of("CrashLoopBackOff"), Pod::CrashLoopBackOff);
        assert_eq!(
            Reason::or("", Admission::ReplicaFailure),
            Admission::ReplicaFailure
        );
        assert_eq!(
            Reason::or("FailedCreate", Admission::ReplicaFailure),
            Admission::FailedCreate
        );
    }

    #[test]
    fn it_serialises_as_its_word() {
        let json = serde_json::to_string(&vec![
            Reason::from(Workload::ProgressDeadlineExceeded),
            Reason::of("InstallFailed"),
        ])
        .unwrap();
        assert_eq!(json, r#"["ProgressDeadlineExceeded","InstallFailed"]"#);
        let back: Vec<Reason> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], Workload::ProgressDeadlineExceeded);
    }
}
