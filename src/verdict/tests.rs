//! Table-driven tests of the verdicts over YAML fixtures of real objects, in
//! `tests/fixtures/verdict/`. Each fixture is multi-document YAML: the first
//! document is the object under test, the rest its context (events,
//! EndpointSlices, pods, dependents). Most were captured from the test
//! cluster with `kubectl get -o yaml`; the hand-written ones say so in a
//! comment at the top.

use crate::verdict::Judged;
use jiff::Timestamp;

use super::Verdict::{self, *};
use super::{Judgement, judge};
use crate::testutil::{fixture_dir, load};

/// The clock of every case, unless the case says otherwise: a little after
/// the fixtures were captured.
const NOW: &str = "2026-11-29T22:30:00Z";

struct Case {
    fixture: &'static str,
    verdict: Verdict,
    reason: &'static str,
    /// A substring the message must contain.
    message: &'static str,
    now: &'static str,
}

const fn case(
    fixture: &'static str,
    verdict: Verdict,
    reason: &'static str,
    message: &'static str,
) -> Case {
    Case {
        fixture,
        verdict,
        reason,
        message,
        now: NOW,
    }
}

impl Case {
    const fn at(self, now: &'static str) -> Case {
        Case { now, ..self }
    }
}

#[rustfmt::skip]
// Kinds of the built-in health rule pack (Flux, Argo, Cluster API, ...) are
// judged by it, as a user's cluster would judge them.
const CASES: &[Case] = &[
    // 1. Deletion.
    case("configmap-finalizer.yaml", Terminating, "FinalizersPending", "finalizer example.com/cleanup (removed by the controller that added it)"),
    case("configmap-foreground.yaml", Terminating, "WaitingForDependents", "waiting for 1 dependent ConfigMap/child to be deleted first"),
    case("pvc-terminating-protection.yaml", Terminating, "FinalizersPending", "kube-controller-manager's pvc-protection controller once no pod uses the claim); still used by pod user"),
    case("pod-deleting.yaml", Terminating, "Deleting", "deletion requested 30s ago; no finalizers, waiting for the object to go"),
    case("namespace-terminating.yaml", Terminating, "FinalizersPending", "content is held by finalizers: example.com/cleanup on 1 object; remaining: configmaps (1)"),
    case("namespace-discovery-failure.yaml", Terminating, "DiscoveryFailed", "metrics.k8s.io/v1beta1"),
    // Metadata only, or nothing to reconcile.
    case("secret-metadata-only.yaml", Converged, "Exists", "only its metadata was read"),
    case("configmap-plain.yaml", Converged, "Exists", "ConfigMap has no status to reconcile"),
    case("serviceaccount.yaml", Converged, "Exists", "ServiceAccount has no status to reconcile"),
    // 2. Generation.
    case("deployment-generation-lag.yaml", Progressing, "ObservedGenerationLag", "controller has observed generation 4 of 5"),
    case("cr-generation-lag.yaml", Progressing, "ObservedGenerationLag", "controller has observed generation 3 of 4"),
    case("cr-condition-generation-lag.yaml", Progressing, "ObservedGenerationLag", "condition Ready reflects generation 3 of 4"),
    case("cr-ready-no-observed-generation.yaml", Converged, "Ready", "Ready=True: widget is serving"),
    // Paused wins over a generation lag.
    case("deployment-paused-lag.yaml", Suspended, "Paused", "paused; spec changes are pending (generation 4 not yet rolled out)"),
    // A built-in controller that never wrote status: waiting for it within
    // NO_STATUS_GRACE of creation (or at an unknown age), Unknown after.
    // A built-in workload kube-controller-manager never wrote: Failed past
    // the grace, naming it (the snapshot holds no Lease to say more).
    case("deployment-no-status.yaml", Failed, "NoStatus", "no controller has written status since creation 3m ago: kube-controller-manager never wrote it"),
    case("deployment-no-status.yaml", Progressing, "WaitingForController", "waiting for its controller to write status (created 20s ago)").at("2026-11-29T22:27:20Z"),
    case("manifest-deployment-no-uid.yaml", Progressing, "WaitingForController", "(age unknown)"),
    // 3. Abnormal-true conditions.
    case("cr-stalled.yaml", Failed, "InstallFailed", "Stalled=True: Failed to install after 1 attempt(s)"),
    case("cr-reconciling.yaml", Progressing, "ProgressingWithRetry", "new upstream revision"),
    // 4. Per-kind rules.
    case("deployment-available.yaml", Converged, "Available", "3/3 replicas available"),
    case("deployment-rollout.yaml", Progressing, "RolloutInProgress", "1 of 3 replicas updated; 3/3 replicas available"),
    case("deployment-old-replicas.yaml", Progressing, "RolloutInProgress", "old replicas are pending termination (1 replica left)"),
    case("deployment-scaling-down.yaml", Progressing, "ScalingDown", "scaling down to 950: 550 replicas pending termination; 999/950 replicas available"),
    case("deployment-waiting-available.yaml", Progressing, "WaitingForAvailable", "2/3 replicas available"),
    case("deployment-deadline-exceeded.yaml", Failed, "ProgressDeadlineExceeded", "rollout made no progress for 5s (progressDeadlineSeconds): ReplicaSet \"stuck-6f95f7dfd4\" has timed out progressing; 0/2 replicas available"),
    case("deployment-quota.yaml", Failed, "FailedCreate", "cannot create pods: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2; 2/3 replicas available"),
    case("deployment-paused-pending.yaml", Suspended, "Paused", "paused; spec changes are pending: 0 of 2 replicas run the latest template"),
    case("deployment-available-false.yaml", Progressing, "MinimumReplicasUnavailable", "2/2 replicas available, but Available=False: Deployment does not have minimum availability."),
    case("deployment-progressing-false.yaml", Progressing, "ReplicaSetCreateError", "2/2 replicas available, but Progressing=False: Failed to create new replica set"),
    // A create failure is final only once it has stood for
    // CREATE_FAILURE_GRACE with no pod created after it.
    case("deployment-late-serviceaccount.yaml", Progressing, "FailedCreate", "cannot create pods: error looking up service account verdict-fixtures-sa/api: serviceaccount \"api\" not found; 0/1 replicas available; retrying (failing for 10s)").at("2026-11-29T22:20:10Z"),
    case("deployment-late-serviceaccount.yaml", Progressing, "FailedCreate", "retrying: a pod was created since"),
    // Rows carry the cause from the pods; every new pod failing hard for
    // longer than HARD_FAILURE_GRACE is Failed.
    case("deployment-image-pull.yaml", Progressing, "WaitingForAvailable", "Pod web-84d6c5b7f9-7mzqp ImagePullBackOff; 0/1 replicas available").at("2026-11-29T22:21:00Z"),
    case("deployment-image-pull.yaml", Failed, "ImagePullBackOff", "Pod web-84d6c5b7f9-7mzqp ImagePullBackOff (container web cannot pull image example.com/web:does-not-exist: backing off); 0/1 replicas available; its only new pod failing for 10m, longer than 3m"),
    case("replicaset-quota.yaml", Failed, "FailedCreate", "cannot create pods: exceeded quota: pods"),
    case("replicaset-not-ready.yaml", Progressing, "WaitingForReady", "0/1 replicas ready"),
    case("replicaset-scaled-down.yaml", Converged, "ScaledDown", "scaled to 0 replicas"),
    case("replicaset-ready.yaml", Converged, "Ready", "3/3 replicas ready"),
    case("replicationcontroller-not-ready.yaml", Progressing, "WaitingForReady", "1/2 replicas ready (2 created)"),
    case("statefulset-ready.yaml", Converged, "Ready", "3/3 replicas ready"),
    case("statefulset-not-ready.yaml", Progressing, "WaitingForReady", "2/3 replicas ready"),
    case("statefulset-partition.yaml", Converged, "PartitionedRollout", "partition 2: 1 of 3 replicas updated to canary-5bdc7fb547, 2 pods stay on the old revision"),
    case("statefulset-ondelete.yaml", Progressing, "WaitingForPodDeletion", "2 pods stay on the old revision; pods update only when deleted"),
    case("daemonset-ready.yaml", Converged, "Ready", "2/2 pods ready"),
    case("daemonset-rollout.yaml", Progressing, "RolloutInProgress", "1 of 2 pods updated; 1/2 pods ready"),
    case("daemonset-unready.yaml", Progressing, "WaitingForReady", "0/2 pods ready, 2 unavailable"),
    case("daemonset-misscheduled.yaml", Progressing, "Misscheduled", "1 daemon pod on nodes that should not run one"),
    case("daemonset-no-desired.yaml", Progressing, "WaitingForController", "no status.desiredNumberScheduled"),
    case("daemonset-unavailable.yaml", Progressing, "WaitingForAvailable", "2/2 pods ready, 1 available"),
    case("daemonset-no-matching-nodes.yaml", Converged, "NoMatchingNodes", "node selector disktype=nvme matches no node"),
    case("statefulset-set-image-unpullable.yaml", Progressing, "WaitingForReady", "0/1 replicas ready").at("2026-12-01T13:20:30Z"),
    case("statefulset-current-behind.yaml", Progressing, "RolloutInProgress", "0 of 3 replicas updated; 3/3 ready"),
    case("job-complete.yaml", Converged, "Complete", "1 of 1 succeeded in 3s"),
    case("job-backoff-limit.yaml", Failed, "BackoffLimitExceeded", "2 pods failed, reaching backoffLimit 1"),
    case("job-deadline.yaml", Failed, "DeadlineExceeded", "ran longer than activeDeadlineSeconds (5s)"),
    case("job-failure-target.yaml", Failed, "BackoffLimitExceeded", "waiting for 1 pod to terminate"),
    case("job-suspended.yaml", Suspended, "Suspended", "suspended by spec.suspend; 0 of 1 succeeded"),
    case("job-running.yaml", Progressing, "Running", "1 active, 0 succeeded of 1"),
    case("job-image-pull.yaml", Progressing, "Running", "Pod migrate-h8x2v ErrImagePull; 1 active, 0 succeeded of 1").at("2026-11-29T22:21:00Z"),
    case("job-image-pull.yaml", Failed, "ErrImagePull", "its only new pod failing for 10m, longer than 3m"),
    case("job-suspend-pending.yaml", Progressing, "Suspending", "suspension requested by spec.suspend; the Job controller has not acted on it yet: no Suspended condition yet"),
    case("cronjob-scheduled.yaml", Converged, "Scheduled", "schedule \"* * * * *\"; last scheduled 16m ago, last success 15m ago"),
    case("cronjob-suspended.yaml", Suspended, "Suspended", "suspended by spec.suspend (schedule \"0 3 * * *\"); never scheduled"),
    case("cronjob-last-job-failed.yaml", Failed, "LastJobFailed", "its most recent Job report-29406980 failed (BackoffLimitExceeded): 2 pods failed, reaching backoffLimit 1"),
    case("cronjob-last-run-failed.yaml", Failed, "LastRunFailed", "the run scheduled 10m ago did not succeed and none is running"),
    case("pod-running.yaml", Converged, "Running", "2/2 containers ready"),
    case("pod-ready-no-container-statuses.yaml", Converged, "Running", "Ready=True; no container statuses reported"),
    case("pod-marked-not-ready.yaml", Progressing, "NotReady", "1/1 containers ready, but marked not ready: Ready=False"),
    case("pod-running-restarts.yaml", Converged, "Running", "2/2 containers ready; restarted 2 times (last: OOMKilled, exit code 137, 9m19s ago)"),
    case("pod-succeeded.yaml", Converged, "Completed", "all containers exited successfully"),
    case("pod-failed-error.yaml", Failed, "Error", "container job failed: Error, exit code 1: job step failed"),
    case("pod-evicted.yaml", Failed, "Evicted", "pod failed (Evicted): The node was low on resource: memory."),
    case("pod-unschedulable.yaml", Failed, "Unschedulable", "the scheduler cannot place it: 0/2 nodes are available: 2 Insufficient cpu."),
    case("pod-crashloop-oomkilled.yaml", Failed, "CrashLoopBackOff", "container app keeps crashing: restarted 22 times; last exit: OOMKilled, exit code 137"),
    case("pod-init-crashloop.yaml", Failed, "CrashLoopBackOff", "init container migrate keeps crashing: restarted 6 times; last exit: Error, exit code 1: connection refused: postgres:5432"),
    case("pod-image-pull-backoff.yaml", Failed, "ImagePullBackOff", "container app cannot pull image example.com/app:does-not-exist: backing off after ErrImagePull: failed to pull and unpack image \"example.com/app:does-not-exist\": not found"),
    case("pod-config-error.yaml", Failed, "CreateContainerConfigError", "container app: secret \"db-credentials\" not found"),
    case("pod-container-creating.yaml", Progressing, "ContainerCreating", "container app: ContainerCreating"),
    case("pod-pending.yaml", Progressing, "Pending", "waiting to be scheduled"),
    case("pod-readiness-failing.yaml", Failed, "ReadinessProbeFailed", "not ready for 17m: readiness probe failed 1 time (HTTP probe failed with statuscode: 503, last 17m ago); 0/1 containers ready"),
    case("pod-readiness-failing.yaml", Progressing, "NotReady", "0/1 containers ready (not ready: app)").at("2026-11-29T22:13:30Z"),
    case("pvc-storageclass-missing.yaml", Failed, "ProvisioningFailed", "the provisioner cannot create a volume: storageclass.storage.k8s.io \"fast-ssd\" not found (2 times, last 6m44s ago)"),
    case("pvc-no-matching-volume.yaml", Failed, "NoMatchingVolume", "no volume matches and no storage class is set"),
    case("pvc-no-status.yaml", Progressing, "Pending", "no phase yet: waiting for the volume controller"),
    case("pvc-provisioner-not-responding.yaml", Failed, "ProvisionerNotResponding", "no volume after 11m of waiting for the external provisioner, longer than 10m"),
    case("pvc-provisioner-not-responding.yaml", Progressing, "Provisioning", "waiting for the external provisioner").at("2026-11-29T22:25:00Z"),
    case("pvc-bound.yaml", Converged, "Bound", "bound to volume pvc-4e1a2b3c-5d6e-4f70-8192-a3b4c5d6e701, 10Gi, storage class standard"),
    case("pvc-lost.yaml", Failed, "Lost", "its volume pvc-4e1a2b3c-5d6e-4f70-8192-a3b4c5d6e702 no longer exists"),
    case("pvc-wait-first-consumer.yaml", Progressing, "WaitingForFirstConsumer", "waiting for a pod that uses this claim to be scheduled"),
    case("pvc-provisioning-failed.yaml", Failed, "ProvisioningFailed", "MULTI_NODE_MULTI_WRITER not supported (9 times, last 2m ago)"),
    case("service-ready-endpoints.yaml", Converged, "EndpointsReady", "3/3 endpoints ready"),
    case("service-no-endpoints.yaml", Failed, "NoEndpoints", "selector app=nothing-here matches no pods"),
    // Applied with its workload a moment ago: not a failure yet.
    case("service-no-endpoints.yaml", Progressing, "WaitingForEndpoints", "matches no pods yet").at("2026-11-29T22:13:06Z"),
    case("service-no-ready-endpoints.yaml", Progressing, "NoReadyEndpoints", "0/2 endpoints ready; its pods are not ready yet"),
    case("pvc-wffc-no-volume.yaml", Failed, "NoMatchingVolume", "no PersistentVolume matches it (class local-disks, 10Gi, ReadWriteOnce) on any node pod db-0 may run on; class local-disks has no provisioner (kubernetes.io/no-provisioner), so such a volume must be created by hand"),
    case("service-scaled-to-zero.yaml", Failed, "ScaledToZero", "no pods to route to: Deployment/web is scaled to 0 replicas (selector app=web)"),
    case("service-named-port-missing.yaml", Failed, "NamedPortNotFound", "port 80 targets port \"http\" by name, which no container of its pods declares (its pods' containers declare \"web\"): traffic to it fails"),
    case("service-failing-endpoints.yaml", Failed, "NoReadyEndpoints", "0/2 endpoints ready; failing pods: stuck-6f95f7dfd4-2rl9v (ReadinessProbeFailed) and stuck-6f95f7dfd4-4vrs4 (ReadinessProbeFailed)"),
    case("service-endpoints-unchecked.yaml", Unknown, "EndpointsNotRead", "endpoints not checked"),
    case("service-lb-pending.yaml", Progressing, "PendingLoadBalancer", "no controller has written status.loadBalancer.ingress"),
    case("service-lb-ready.yaml", Converged, "EndpointsReady", "load balancer at 203.0.113.10"),
    case("service-no-selector.yaml", Converged, "Current", "no selector"),
    case("service-externalname.yaml", Converged, "ExternalName", "DNS alias for db.prod.example.com"),
    case("namespace-active.yaml", Converged, "Active", "namespace is active"),
    case("node-ready.yaml", Converged, "Ready", "kubelet reports Ready"),
    case("node-not-ready.yaml", Failed, "NodeNotReady", "Ready=Unknown for 12m: Kubelet stopped posting node status."),
    case("node-memory-pressure.yaml", Failed, "MemoryPressure", "kubelet has insufficient memory available"),
    case("node-cordoned.yaml", Suspended, "Cordoned", "cordoned (spec.unschedulable)"),
    case("crd-established.yaml", Converged, "Established", "serving widgets.example.com (v1)"),
    case("crd-names-conflict.yaml", Failed, "NamesNotAccepted", "NamesAccepted=False: \"wd\" is already in use"),
    case("crd-installing.yaml", Progressing, "NotEstablished", "Established=False: the initial names have been accepted"),
    case("hpa-failed-metrics.yaml", Failed, "FailedGetResourceMetric", "unable to get metrics for resource cpu"),
    case("hpa-scaling.yaml", Progressing, "Scaling", "scaling from 3 to 5 replicas (min 3, max 10)"),
    case("hpa-at-max.yaml", Converged, "Stable", "scaling limited (TooManyReplicas)"),
    case("pdb-healthy.yaml", Converged, "SufficientPods", "3 healthy, 2 required; 1 disruption allowed"),
    case("pdb-zero-disruptions.yaml", Converged, "NoDisruptionsAllowed", "2 healthy, 2 required; 0 disruptions allowed: it blocks every voluntary eviction and node drain"),
    case("pdb-insufficient.yaml", Progressing, "InsufficientPods", "0 of 2 required pods healthy; 0 disruptions allowed"),
    case("ingress-no-address.yaml", Progressing, "PendingAddress", "waiting for an ingress controller to write an address (2m23s so far)").at("2026-11-29T22:15:00Z"),
    case("ingress-no-address.yaml", Failed, "NoAddress", "no ingress controller has written an address in 17m; is one running?"),
    case("ingress-address.yaml", Converged, "Address", "served at 203.0.113.20"),
    // 5. Ready-style conditions of any kind.
    case("cr-ready-false.yaml", Progressing, "DoesNotExist", "Issuing certificate as Secret does not exist"),
    case("cr-available.yaml", Converged, "Available", "Available=True: 3 of 3 gizmos up"),
    case("cr-synced-false.yaml", Failed, "ReconcileError", "Synced=False: update failed"),
    case("cr-degraded.yaml", Failed, "IngressDegraded", "1/2 of replicas are available"),
    // Custom resources by the shared conventions, in real operators' shapes.
    case("gateway-waiting-for-controller.yaml", Progressing, "Pending", "Waiting for controller"),
    case("gateway-programmed.yaml", Converged, "Accepted", "Accepted=True: Gateway accepted"),
    case("gateway-invalid.yaml", Failed, "UnsupportedAddress", "Accepted=False: address type NamedAddress is not supported"),
    case("flux-kustomization-dependency.yaml", Progressing, "DependencyNotReady", "dependency 'flux-system/infrastructure' is not ready"),
    case("flux-kustomization-suspended.yaml", Suspended, "Suspended", "reconciliation is suspended (spec.suspend: true)"),
    case("crossplane-bucket-creating.yaml", Progressing, "Creating", "Ready=False (Creating)"),
    case("capi-machine-severity-error.yaml", Failed, "InstanceProvisionFailed", "Ready=False: 1 of 2 completed"),
    // The message that explains, beside the one that decided.
    case("capi-machine-severity-error.yaml", Failed, "InstanceProvisionFailed", "1 of 2 completed; InfrastructureReady=False: the instance could not be created"),
    case("capi-machine-waiting.yaml", Progressing, "Pending", "Ready=False (WaitingForInfrastructure)"),
    case("capi-cluster-paused.yaml", Suspended, "Paused", "reconciliation is paused (spec.paused: true)"),
    case("argo-rollout-degraded.yaml", Failed, "ProgressDeadlineExceeded", "ProgressDeadlineExceeded: ReplicaSet \"checkout-6c9d8f7b4\" has timed out progressing."),
    case("argo-rollout-paused.yaml", Suspended, "Paused", "the rollout is paused (spec.paused: true)"),
    case("argo-workflow-failed.yaml", Failed, "Failed", "status.phase is Failed: Error (exit code 1)"),
    case("argo-application-degraded.yaml", Failed, "Degraded", "Deployment \"web\" exceeded its progress deadline"),
    case("knative-service-revision-failed.yaml", Failed, "RevisionFailed", "Ready=False: Revision \"hello-00002\" failed"),
    case("tekton-pipelinerun-running.yaml", Progressing, "Running", "Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2"),
    case("ack-bucket-terminal.yaml", Failed, "Terminal", "ACK.Terminal=True: InvalidBucketName: The specified bucket is not valid."),
    case("strimzi-kafka-notready.yaml", Progressing, "Creating", "NotReady=True: Creating the Kafka cluster"),
    case("velero-backup-partially-failed.yaml", Failed, "PartiallyFailed", "status.phase is PartiallyFailed"),
    case("cr-phase-failed-ready-true.yaml", Failed, "Failed", "status.phase is Failed: backup volume is full"),
    case("cr-healthy-false.yaml", Failed, "Unhealthy", "status.healthy is false"),
    case("cr-ready-false-no-progress.yaml", Failed, "MinimumReplicasUnavailable", "no progress for 20m: Ready=False: 1 of 3 widgets up"),
    case("cr-ready-false-no-progress.yaml", Progressing, "MinimumReplicasUnavailable", "1 of 3 widgets up").at("2026-11-29T22:15:00Z"),
    case("cr-state-provisioning.yaml", Progressing, "Provisioning", "status.state is Provisioning"),
    case("cr-negative-condition.yaml", Failed, "ValidationFailed", "SpecError=True: spec.size: must be at most 2 on this plan"),
    // Status shapes many operators share (issue 17's classes).
    case("httproute-parent-not-accepted.yaml", Failed, "NoMatchingListenerHostname", "parent Gateway infra/internal:https: Accepted=False: No listener matches this route's hostnames"),
    case("httproute-refs-unresolved.yaml", Failed, "BackendNotFound", "parent Gateway infra/public: ResolvedRefs=False: Service \"checkout-v2\" not found"),
    case("httproute-parent-generation-lag.yaml", Progressing, "ObservedGenerationLag", "parent Gateway infra/public: condition Accepted reflects generation 2 of 3"),
    case("httproute-no-parents-yet.yaml", Progressing, "WaitingForParents", "no controller has accepted or refused the route yet"),
    case("openshift-route-not-admitted.yaml", Failed, "HostAlreadyClaimed", "ingress shop.apps.example.com: Admitted=False: route shop already exposes"),
    case("cr-conditioned-status-synced-false.yaml", Failed, "ReconcileError", "Synced=False: cannot create instance: quota exceeded for region"),
    case("karpenter-nodeclaim-launch-failed.yaml", Failed, "LaunchFailed", "Launched=False: creating instance, insufficient capacity"),
    case("spark-application-failed.yaml", Failed, "ApplicationFailed", "FAILED: driver container failed with ExitCode: 1, Reason: Error"),
    case("ceph-cluster-health-err.yaml", Failed, "HealthError", "Ceph health is HEALTH_ERR"),
    case("policy-noncompliant.yaml", Failed, "NonCompliant", "status.compliant is NonCompliant"),
    case("volumesnapshot-error.yaml", Failed, "Error", "status.error: Failed to check and update snapshot content"),
    case("volumesnapshot-not-ready.yaml", Progressing, "NotReadyToUse", "status.readyToUse is false"),
    case("cr-errors-list.yaml", Failed, "Error", "status.errors has 1 entry: stage transform: image not allowed by policy"),
    case("cr-replicas-short.yaml", Progressing, "WaitingForReplicas", "1/3 replicas ready"),
    case("tekton-pipelinerun-timeout.yaml", Failed, "PipelineRunTimeout", "the run failed: Succeeded=False: PipelineRun \"deploy-7kq2x\" failed to finish within \"10m0s\""),
    case("cr-run-running.yaml", Progressing, "Running", "status.phase is Running"),
    case("cr-update-paused.yaml", Suspended, "Suspended", "reconciliation stopped by spec.updateStrategy.paused"),
    case("cr-no-signal.yaml", Unknown, "NoHealthSignal", "no condition, status word, count or observedGeneration"),
    case("flux-helmrelease-retrying.yaml", Failed, "UpgradeFailed", "context deadline exceeded; retrying (Reconciling=True, ProgressingWithRetry)"),
    case("argo-rollout-aborted.yaml", Failed, "RolloutAborted", "Rollout aborted update to revision 4"),
    // Crash loops are timed from the run of failures, not Ready's moves.
    case("statefulset-crashloop.yaml", Failed, "CrashLoopBackOff", "Pod db-0 CrashLoopBackOff (container db keeps crashing: restarted 279 times; last exit: Error, exit code 1); 0/3 replicas ready; its only new pod failing for 4h29m, longer than 3m; OrderedReady: db-1…db-2 not created until the pods before them are ready"),
    case("daemonset-updated-pod-crashloop.yaml", Failed, "CrashLoopBackOff", "Pod agent-new02 CrashLoopBackOff (container agent keeps crashing: restarted 5 times; last exit: Error, exit code 2); 1 of 2 pods updated; 1/2 pods ready"),
    // 2m50s into its run of failures (from 22:26:10): still within the grace.
    case("daemonset-updated-pod-crashloop.yaml", Progressing, "RolloutInProgress", "Pod agent-new02 CrashLoopBackOff; 1 of 2 pods updated; 1/2 pods ready").at("2026-11-29T22:29:00Z"),
    case("pod-crashloop-running-again.yaml", Failed, "CrashLoopBackOff", "container worker keeps crashing: restarted 44 times; last exit: OOMKilled, exit code 137 (running again for 8s)"),
    case("pod-crashloop-running-again.yaml", Converged, "Running", "1/1 containers ready; restarted 44 times").at("2026-11-29T22:36:00Z"),
    // 5b. Who wrote the status, and whether that controller runs (a kind
    // with no observedGeneration: External Secrets Operator's).
    case("externalsecret-synced.yaml", Converged, "Ready", "Ready=True").at("2026-12-06T04:20:00Z"),
    case("externalsecret-spec-unseen-operator-stopped.yaml", Progressing, "SpecNotObserved", "spec changed 20s ago by kubectl-patch, after external-secrets last wrote the status 89s ago; ExternalSecret reports no observedGeneration; its controller: lease external-secrets/external-secrets-controller last renewed 70s ago, longer than its 15s").at("2026-12-06T04:21:20Z"),
    case("externalsecret-spec-unseen-operator-stopped.yaml", Failed, "ControllerDown", "and its controller is not running: lease external-secrets/external-secrets-controller last renewed 95s ago, longer than its 15s").at("2026-12-06T04:21:45Z"),
    case("externalsecret-spec-unseen-operator-running.yaml", Progressing, "SpecNotObserved", "waiting for external-secrets to act on it").at("2026-12-06T04:21:10Z"),
    case("externalsecret-spec-unseen-operator-running.yaml", Converged, "Ready", "trusted: its controller runs (lease external-secrets/external-secrets-controller renewed 2s ago)").at("2026-12-06T04:22:00Z"),
    case("externalsecret-spec-unseen-no-lease.yaml", Unknown, "ControllerNotFound", "whether its controller runs is not known: no lease was read").at("2026-12-06T04:22:00Z"),
    // A built-in workload kube-controller-manager never wrote (zero counts
    // the API server defaulted, no observedGeneration).
    case("daemonset-never-written.yaml", Progressing, "WaitingForController", "waiting for its controller to write status (created 20s ago): kube-controller-manager").at("2026-12-06T04:20:56Z"),
    case("daemonset-never-written.yaml", Failed, "ControllerDown", "no controller has written status since creation 2m24s ago: kube-controller-manager never wrote it (no observedGeneration); lease kube-system/kube-controller-manager last renewed 2m26s ago, longer than its 15s").at("2026-12-06T04:23:00Z"),
    // A refusal said only in Warning events: a CronJob whose Jobs a quota
    // refuses (its first FailedCreate at 04:22:00).
    case("cronjob-refused-by-quota.yaml", Progressing, "FailedCreate", "Warning FailedCreate ×14 over 41s, last 9s ago: Error creating job: jobs.batch \"report-29942182\" is forbidden: exceeded quota: no-jobs").at("2026-12-06T04:22:50Z"),
    case("cronjob-refused-by-quota.yaml", Failed, "FailedCreate", "Warning FailedCreate ×15 over 82s, last 2m38s ago: Error creating job: jobs.batch \"report-29942183\" is forbidden: exceeded quota: no-jobs, requested: count/jobs.batch=1, used: count/jobs.batch=0, limited: count/jobs.batch=0; refused for longer than the 2m grace").at("2026-12-06T04:26:00Z"),
    // Its own word; its tree's verdict is verdict::tree's (tests there).
    case("clusterexternalsecret-over-failing-child.yaml", Converged, "Ready", "Ready=True").at("2026-12-06T04:28:00Z"),
    // An object that waits for someone else: a CertificateSigningRequest.
    case("csr-pending.yaml", Progressing, "WaitingForApproval", "waiting for 39s for an approver (for kubernetes.io/kube-apiserver-client): approve or deny it").at("2026-12-06T05:27:30Z"),
    case("csr-approved.yaml", Progressing, "Approved", "approved; waiting for kubernetes.io/kube-apiserver-client to issue the certificate").at("2026-12-06T05:27:30Z"),
    case("csr-approved.yaml", Failed, "SignerNotResponding", "has issued no certificate: is its signer running?").at("2026-12-06T05:40:00Z"),
    case("csr-denied.yaml", Failed, "Denied", "Denied=True").at("2026-12-06T05:27:30Z"),
    case("csr-issued.yaml", Converged, "Issued", "certificate issued by kubernetes.io/kube-apiserver-client").at("2026-12-06T05:27:30Z"),
    // A controller's catch-all error is retried before it is final.
    case("externalsecret-store-not-yet.yaml", Progressing, "SecretSyncedError", "retrying: failing for 10s, Failed if it lasts 2m").at("2026-12-06T04:19:54Z"),
    case("externalsecret-store-not-yet.yaml", Failed, "SecretSyncedError", "retried for 2m16s, longer than the 2m grace").at("2026-12-06T04:22:00Z"),
    // 6. Default.
    case("cr-no-status.yaml", Unknown, "NoStatus", "no controller has written status since creation 20m ago"),
    case("cr-no-status.yaml", Progressing, "WaitingForController", "waiting for its controller to write status (created 30s ago)").at("2026-11-29T22:10:30Z"),
    case("cr-status-without-conditions.yaml", Converged, "Running", "status.phase is Running"),
];

fn run(name: &str, now: &str) -> Judgement {
    let (snap, obj) = load(name, now);
    judge(&obj, &Judged::builtin(&snap))
}

#[test]
fn every_case_gets_its_verdict_reason_and_message() {
    let mut failures = Vec::new();
    for c in CASES {
        let got = run(c.fixture, c.now);
        if got.verdict != c.verdict || got.reason != c.reason || !got.message.contains(c.message) {
            failures.push(format!(
                "{} (now {}):\n    want {} {} containing {:?}\n    got  {} {} {:?}",
                c.fixture,
                c.now,
                c.verdict,
                c.reason,
                c.message,
                got.verdict,
                got.reason,
                got.message
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fixture_has_a_case() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".yaml") && !CASES.iter().any(|c| c.fixture == name) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "fixtures without a case: {missing:?}");
}

#[test]
fn messages_are_single_lines() {
    for c in CASES {
        let got = run(c.fixture, c.now);
        assert!(
            !got.message.contains('\n'),
            "{}: {:?}",
            c.fixture,
            got.message
        );
        assert!(
            !got.reason.as_str().contains(' '),
            "{}: reason {:?}",
            c.fixture,
            got.reason
        );
    }
}

fn ts(s: &str) -> Option<Timestamp> {
    Some(s.parse().unwrap())
}

#[test]
fn since_comes_from_the_relevant_timestamp() {
    let cases = [
        ("configmap-finalizer.yaml", ts("2026-11-29T22:13:01Z")),
        (
            "deployment-deadline-exceeded.yaml",
            ts("2026-11-29T22:12:42Z"),
        ),
        ("pod-unschedulable.yaml", ts("2026-11-29T22:12:37Z")),
        ("job-backoff-limit.yaml", ts("2026-11-29T22:12:48Z")),
        ("node-not-ready.yaml", ts("2026-11-29T22:18:00Z")),
        ("cr-stalled.yaml", ts("2026-11-29T22:05:00Z")),
        ("cr-no-status.yaml", ts("2026-11-29T22:10:00Z")),
        ("deployment-paused-pending.yaml", ts("2026-11-29T22:12:48Z")),
        // The epoch in Gateway API's default conditions is no time at all.
        ("gateway-waiting-for-controller.yaml", None),
    ];
    for (fixture, want) in cases {
        assert_eq!(run(fixture, NOW).since, want, "{fixture}");
    }
}

#[test]
fn ready_counts_where_they_mean_something() {
    let cases = [
        ("deployment-rollout.yaml", Some((3, 3))),
        ("deployment-quota.yaml", Some((2, 3))),
        ("replicaset-not-ready.yaml", Some((0, 1))),
        ("statefulset-not-ready.yaml", Some((2, 3))),
        ("daemonset-rollout.yaml", Some((1, 2))),
        ("job-complete.yaml", Some((1, 1))),
        ("pod-running.yaml", Some((2, 2))),
        ("pod-crashloop-oomkilled.yaml", Some((0, 1))),
        ("service-ready-endpoints.yaml", Some((3, 3))),
        ("configmap-plain.yaml", None),
        ("cr-ready-false.yaml", None),
    ];
    for (fixture, want) in cases {
        let got = run(fixture, NOW).ready.map(|r| (r.ready, r.desired));
        assert_eq!(got, want, "{fixture}");
    }
}

/// A built-in kind the source knows serves a status subresource, with an
/// empty status, has nobody reconciling it; without the subresource, an
/// object with no status simply exists.
#[test]
fn the_status_subresource_decides_between_unknown_and_exists() {
    let (snap, mut obj) = load("cr-no-status.yaml", NOW);
    obj.status_subresource = Some(false);
    assert_eq!(judge(&obj, &Judged::builtin(&snap)).reason, "Exists");
    obj.status_subresource = Some(true);
    std::sync::Arc::make_mut(&mut obj.raw)["status"] = serde_json::json!({});
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Unknown, "NoStatus"));

    let (snap, obj) = load("serviceaccount.yaml", NOW);
    assert_eq!(obj.status_subresource, None);
    assert_eq!(judge(&obj, &Judged::builtin(&snap)).reason, "Exists");

    // A CronJob's status stays empty until its first run, subresource or
    // not: its rule knows better than the discovery flag.
    let (snap, mut obj) = load("cronjob-suspended.yaml", NOW);
    obj.status_subresource = Some(true);
    std::sync::Arc::make_mut(&mut obj.raw)["spec"]["suspend"] = serde_json::json!(false);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Converged, "Scheduled"));
    assert!(j.message.ends_with("never scheduled"), "{}", j.message);
}

/// Deletion comes first: a paused, lagging Deployment being deleted is
/// Terminating, not Suspended.
#[test]
fn deletion_wins_over_everything() {
    let (snap, mut obj) = load("deployment-paused-lag.yaml", NOW);
    obj.deleted = ts("2026-11-29T22:29:00Z");
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Terminating, "Deleting"));
    assert_eq!(
        j.message,
        "deletion requested 60s ago; no finalizers, waiting for the object to go"
    );
}

/// A Pod resized in place has a new generation; the scheduler never
/// revisits PodScheduled, so that condition's observedGeneration stays
/// behind and must not read as a lag.
#[test]
fn built_in_conditions_owned_by_others_are_not_a_lag() {
    let (snap, mut obj) = load("pod-unschedulable.yaml", NOW);
    assert_eq!(
        obj.condition("PodScheduled").unwrap().observed_generation,
        Some(1)
    );
    obj.generation = Some(2);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Failed, "Unschedulable"));

    // The same lag on a custom resource is one.
    let (snap, mut obj) = load("cr-ready-false.yaml", NOW);
    obj.generation = Some(2);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Progressing, "ObservedGenerationLag")
    );
    assert_eq!(
        j.message,
        "condition Ready reflects generation 1 of 2; the controller has not caught up"
    );
}

/// Every word of the vocabulary, in `status.phase` of a custom resource as
/// a controller spells it (`Failed`, `InProgress`), gives its verdict.
#[test]
fn every_status_word_gives_its_verdict() {
    use super::vocabulary::{WORDS, Word};
    let (snap, base) = load("cr-state-provisioning.yaml", NOW);
    for (word, class) in WORDS {
        let spelled: String = word[..1].to_uppercase() + &word[1..];
        for field in ["phase", "state", "status"] {
            let mut obj = base.clone();
            std::sync::Arc::make_mut(&mut obj.raw)["status"] =
                serde_json::json!({ field: spelled });
            let want = match class {
                Word::Failed => Failed,
                Word::Progressing => Progressing,
                Word::Converged => Converged,
                Word::Suspended => Suspended,
            };
            let got = judge(&obj, &Judged::builtin(&snap));
            assert_eq!(got.verdict, want, "status.{field}: {spelled} gave {got:?}");
            assert!(
                got.message
                    .starts_with(&format!("status.{field} is {spelled}")),
                "{got:?}"
            );
        }
    }
    // status.health as an object, as Argo CD writes it.
    let mut obj = base.clone();
    std::sync::Arc::make_mut(&mut obj.raw)["status"] =
        serde_json::json!({"health": {"status": "Healthy"}});
    assert_eq!(judge(&obj, &Judged::builtin(&snap)).verdict, Converged);
}

/// A word the vocabulary does not know says nothing: the object falls to
/// the default, which says that no signal was found. Converged only where
/// the controller has observed the current generation.
#[test]
fn an_unknown_word_says_nothing() {
    let (snap, mut obj) = load("cr-state-provisioning.yaml", NOW);
    std::sync::Arc::make_mut(&mut obj.raw)["status"] = serde_json::json!({"phase": "Blue"});
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Unknown, "NoHealthSignal"));
    assert!(j.message.contains("docs/health-rules.md"), "{}", j.message);
    obj.generation = Some(2);
    std::sync::Arc::make_mut(&mut obj.raw)["status"] =
        serde_json::json!({"phase": "Blue", "observedGeneration": 2});
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Converged, "NoHealthSignal")
    );
    assert!(
        j.message
            .starts_with("controller has observed generation 2;"),
        "{}",
        j.message
    );
}

/// A Cluster API condition with severity Warning is not a failure.
#[test]
fn only_severity_error_fails() {
    let (snap, mut obj) = load("capi-machine-severity-error.yaml", NOW);
    for c in std::sync::Arc::make_mut(&mut obj.raw)["status"]["conditions"]
        .as_array_mut()
        .unwrap()
    {
        if c.get("severity").is_some() {
            c["severity"] = serde_json::json!("Warning");
            c["reason"] = serde_json::json!("WaitingForBootstrapData");
        }
    }
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(j.verdict, Progressing, "{j:?}");
}

/// spec.suspend on a Job that the controller has lifted already, but has
/// not yet resumed: Resuming.
#[test]
fn a_job_resuming_is_progressing() {
    let (snap, mut obj) = load("job-suspended.yaml", NOW);
    std::sync::Arc::make_mut(&mut obj.raw)["spec"]["suspend"] = serde_json::json!(false);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!((j.verdict, j.reason.as_str()), (Progressing, "Resuming"));
}

/// A readiness gate that is not met is named; one that is met is not.
#[test]
fn readiness_gates_name_only_the_pending_ones() {
    let (snap, mut obj) = load("pod-marked-not-ready.yaml", NOW);
    std::sync::Arc::make_mut(&mut obj.raw)["spec"]["readinessGates"] = serde_json::json!([
        {"conditionType": "example.com/lb-registered"},
        {"conditionType": "example.com/warm"}
    ]);
    std::sync::Arc::make_mut(&mut obj.raw)["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "example.com/warm", "status": "True"}));
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(j.reason, "ReadinessGatesPending");
    assert!(
        j.message
            .ends_with("waiting for readiness gates: example.com/lb-registered"),
        "{}",
        j.message
    );
}

/// A readiness gate that nothing sets for longer than GATE_GRACE is a
/// failure, said with what is waited on.
#[test]
fn a_readiness_gate_nothing_sets_is_failed_after_its_grace() {
    let (snap, mut obj) = load("pod-marked-not-ready.yaml", NOW);
    std::sync::Arc::make_mut(&mut obj.raw)["spec"]["readinessGates"] =
        serde_json::json!([{"conditionType": "example.com/lb-registered"}]);
    let since = obj
        .conditions()
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .and_then(|c| c.last_transition_time)
        .unwrap();
    let mut snap = snap;
    snap.now = since + super::kinds::GATE_GRACE + jiff::SignedDuration::from_secs(60);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Failed, "ReadinessGateNotSet"),
        "{j:?}"
    );
    assert!(
        j.message.contains(
            "readiness gates not set for 11m, longer than 10m: example.com/lb-registered"
        ),
        "{}",
        j.message
    );
    snap.now = since + jiff::SignedDuration::from_secs(60);
    assert_eq!(
        judge(&obj, &Judged::builtin(&snap)).reason,
        "ReadinessGatesPending"
    );
}

/// A PDB allowing no disruption and a DaemonSet that matches no node are
/// Converged, with a finding.
#[test]
fn converged_verdicts_that_deserve_a_word_have_a_concern() {
    for (fixture, want) in [
        ("pdb-zero-disruptions.yaml", "DisruptionsBlocked"),
        ("daemonset-no-matching-nodes.yaml", "NoMatchingNodes"),
    ] {
        let (snap, obj) = load(fixture, NOW);
        let j = judge(&obj, &Judged::builtin(&snap));
        assert_eq!(
            super::concern(&obj, &j).map(|c| c.0.to_string()),
            Some(want.to_string()),
            "{fixture}"
        );
    }
    let (snap, obj) = load("pdb-healthy.yaml", NOW);
    assert_eq!(
        super::concern(&obj, &judge(&obj, &Judged::builtin(&snap))),
        None
    );
}

/// One new pod failing hard while another runs is a cause to show, not a
/// reason to give up: the workload stays Progressing.
#[test]
fn a_workload_fails_only_when_every_new_pod_fails_hard() {
    let (snap, obj) = load("deployment-image-pull.yaml", NOW);
    let mut objects = snap.objects().to_vec();
    let mut healthy = objects.iter().find(|o| o.kind() == "Pod").unwrap().clone();
    healthy.id.name = "web-84d6c5b7f9-abcde".into();
    healthy.uid = "5a000002-0000-4000-8000-00000000000f".into();
    std::sync::Arc::make_mut(&mut healthy.raw)["status"] = serde_json::json!({
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T22:20:05Z"}],
        "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "state": {"running": {}}}]
    });
    objects.push(healthy);
    let snap = crate::model::Snapshot::new(objects, snap.events.clone(), Vec::new(), snap.now);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(j.verdict, Progressing, "{j:?}");
    assert!(
        j.message
            .starts_with("Pod web-84d6c5b7f9-7mzqp ImagePullBackOff; "),
        "{}",
        j.message
    );
}

/// A DaemonSet with no pods whose selector a known Node matches is not
/// blamed on its selector.
#[test]
fn a_matching_node_clears_the_node_selector() {
    let (snap, obj) = load("daemonset-no-matching-nodes.yaml", NOW);
    let (_, mut node) = load("node-ready.yaml", NOW);
    node.labels.insert("disktype".into(), "nvme".into());
    let mut objects = snap.objects().to_vec();
    objects.push(node);
    let snap = crate::model::Snapshot::new(objects, Vec::new(), Vec::new(), snap.now);
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Converged, "Ready"),
        "{j:?}"
    );
}

/// Every grace period is stated for users in docs/verdicts.md, by name and
/// with its length.
#[test]
fn the_docs_state_every_grace_period() {
    let docs = include_str!("../../docs/verdicts.md");
    let graces = [
        ("NO_STATUS_GRACE", super::NO_STATUS_GRACE),
        ("CREATE_FAILURE_GRACE", super::kinds::CREATE_FAILURE_GRACE),
        ("HARD_FAILURE_GRACE", super::kinds::HARD_FAILURE_GRACE),
        ("NO_PROGRESS_GRACE", super::conventions::NO_PROGRESS_GRACE),
        ("PROVISION_GRACE", super::kinds::PROVISION_GRACE),
        ("GATE_GRACE", super::kinds::GATE_GRACE),
        ("REFERENCE_GRACE", super::kinds::REFERENCE_GRACE),
        ("INIT_GRACE", super::kinds::INIT_GRACE),
        (
            "CONTROLLER_GRACE",
            crate::diagnose::controller::CONTROLLER_GRACE,
        ),
        ("GONE_FAILURE_WINDOW", crate::diagnose::GONE_FAILURE_WINDOW),
    ];
    for (name, length) in graces {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("{name} is not in the docs' table of grace periods"));
        let secs = length.as_secs();
        let stated = if secs % 60 == 0 && secs >= 180 {
            format!("| {} min", secs / 60)
        } else {
            format!("| {secs} s")
        };
        assert!(
            row.contains(&stated),
            "{name} is {secs}s; the docs say {row}"
        );
    }
}

#[test]
fn a_named_port_is_judged_from_the_slices_when_pods_are_metadata_only() {
    // A sweep reads pods as metadata: the slices' missing port decides.
    let (snap, svc) = load("service-named-port-missing.yaml", NOW);
    let objects: Vec<crate::model::Object> = snap
        .objects()
        .iter()
        .map(|o| {
            let mut o = o.clone();
            if o.kind() == "Pod" {
                std::sync::Arc::make_mut(&mut o.raw)
                    .as_object_mut()
                    .unwrap()
                    .remove("spec");
                o.metadata_only = true;
            }
            o
        })
        .collect();
    let meta = crate::model::Snapshot::new(objects.clone(), vec![], vec![], snap.now);
    let j = judge(&svc, &Judged::builtin(&meta));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Failed, "NamedPortNotFound"),
        "{}",
        j.message
    );
    assert!(
        j.message.contains("EndpointSlices carry no such port"),
        "{}",
        j.message
    );
    // The slice with the port is converged.
    let fixed: Vec<crate::model::Object> = objects
        .into_iter()
        .map(|mut o| {
            if o.kind() == "EndpointSlice" {
                std::sync::Arc::make_mut(&mut o.raw)["ports"] =
                    serde_json::json!([{"name": "", "port": 8080, "protocol": "TCP"}]);
            }
            o
        })
        .collect();
    let j = judge(
        &svc,
        &Judged::builtin(&crate::model::Snapshot::new(
            fixed,
            vec![],
            vec![],
            snap.now,
        )),
    );
    assert_eq!(j.verdict, Converged, "{}", j.message);
}

#[test]
fn only_kinds_judged_by_the_conventions_alone_may_be_settled_as_their_list_arrives() {
    let (_, deploy) = load("deployment-available.yaml", NOW);
    assert!(
        !super::judged_alone(&deploy),
        "a Deployment's verdict reads its pods"
    );
    let mut cr = crate::model::Object::from_value(
        serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
    )
    .unwrap();
    assert!(super::judged_alone(&cr));
    cr.deleted = Some(NOW.parse().unwrap());
    assert!(
        !super::judged_alone(&cr),
        "a deletion reads finalizers and what holds it"
    );
}

/// Judges the first object of `kind` in a snapshot of real operators'
/// objects, with the default grace or `--fail-fast`'s.
fn operator_verdict(
    files: &[&str],
    kind: &str,
    now: &str,
    fail_fast: bool,
) -> (Verdict, String, String) {
    let snap = crate::testutil::operators(files, now);
    let judge_ = super::Judge {
        failure_grace: fail_fast.then_some(jiff::SignedDuration::ZERO),
        ..super::Judge::builtin().clone()
    };
    let obj = snap.objects().iter().find(|o| o.kind() == kind).unwrap();
    let j = judge(obj, &judge_.on(&snap));
    (j.verdict, j.reason.to_string(), j.message)
}

#[test]
fn a_failure_below_a_real_operators_workload_fails_it() {
    // Argo Rollouts: the canary ReplicaSet's pods cannot pull, 90 s in;
    // the Rollout says `phase: Progressing` until its 10-minute deadline.
    let rollout = ["argo-rollouts/image-pull-backoff/after-90s.yaml"];
    let (v, reason, message) = operator_verdict(&rollout, "Rollout", "2026-12-01T23:21:00Z", false);
    assert_eq!(
        (v, reason.as_str()),
        (Progressing, "Progressing"),
        "{message}"
    );
    let (v, reason, message) = operator_verdict(&rollout, "Rollout", "2026-12-01T23:21:00Z", true);
    assert_eq!(
        (v, reason.as_str()),
        (Failed, "ImagePullBackOff"),
        "{message}"
    );
    assert!(
        message.starts_with("ReplicaSet web-66f6b89f49 is Failed (ImagePullBackOff): "),
        "{message}"
    );
    // Past the hard-failure grace, without --fail-fast too.
    let (v, reason, _) = operator_verdict(&rollout, "Rollout", "2026-12-01T23:23:00Z", false);
    assert_eq!((v, reason.as_str()), (Failed, "ImagePullBackOff"));
    // prometheus-operator: `Available=False NoPodReady` from the first
    // reconcile; the StatefulSet's only pod crash-loops.
    let prometheus = ["prometheus-operator/prometheus-crash-loop/objects.yaml"];
    let (v, reason, message) =
        operator_verdict(&prometheus, "Prometheus", "2026-12-01T23:23:20Z", true);
    assert_eq!(
        (v, reason.as_str()),
        (Failed, "CrashLoopBackOff"),
        "{message}"
    );
    assert!(
        message.starts_with("StatefulSet prometheus-main is Failed"),
        "{message}"
    );
    let alertmanager = ["prometheus-operator/alertmanager-image-pull-backoff/objects.yaml"];
    let (v, reason, message) =
        operator_verdict(&alertmanager, "Alertmanager", "2026-12-01T23:30:00Z", true);
    assert_eq!(
        (v, reason.as_str()),
        (Failed, "ImagePullBackOff"),
        "{message}"
    );
    // A healthy one stays as it is.
    let healthy = ["prometheus-operator/healthy/objects.yaml"];
    let (v, _, message) = operator_verdict(&healthy, "Prometheus", "2026-12-01T23:30:00Z", true);
    assert_eq!(v, Converged, "{message}");
}

#[test]
fn a_real_rollout_with_a_stale_status_is_never_converged() {
    // The controller stopped, then `set image`: generation 3, the status
    // (observedGeneration "2", phase Healthy) written for the old spec.
    for stale in [
        "argo-rollouts/stale-controller-stopped/after-change.yaml",
        "argo-rollouts/stale-controller-frozen/after-change.yaml",
    ] {
        let (v, reason, message) =
            operator_verdict(&[stale], "Rollout", "2026-12-01T23:40:00Z", false);
        assert_eq!(
            (v, reason.as_str()),
            (Progressing, "ObservedGenerationLag"),
            "{stale}"
        );
        assert_eq!(
            message, "controller has observed generation 2 of 3",
            "{stale}"
        );
    }
    let (v, reason, _) = operator_verdict(
        &["argo-rollouts/canary-promoted/promoted.yaml"],
        "Rollout",
        "2026-12-01T23:40:00Z",
        false,
    );
    assert_eq!((v, reason.as_str()), (Converged, "Healthy"));
}

#[test]
fn a_wait_on_a_missing_or_unready_issuer_is_bounded() {
    let snap_at = |files: &[&str], now: &str, issuer_absent: bool| {
        let mut snap = crate::testutil::operators(files, now);
        if issuer_absent {
            // As the read plan records an Issuer it looked for by name.
            snap.absent.push(crate::model::ObjectRef {
                api_version: "cert-manager.io/v1".into(),
                kind: "Issuer".into(),
                namespace: Some("fx-cm-missing-issuer".into()),
                name: "does-not-exist".into(),
                uid: None,
            });
        }
        snap
    };
    let verdict = |snap: &crate::model::Snapshot, kind: &str| {
        let obj = snap.objects().iter().find(|o| o.kind() == kind).unwrap();
        let j = judge(obj, &Judged::builtin(snap));
        (j.verdict, j.reason.to_string(), j.message)
    };
    let missing = ["cert-manager/missing-issuer/objects.yaml"];
    // Within the grace: the request waits, as cert-manager says.
    let snap = snap_at(&missing, "2026-12-01T23:23:30Z", true);
    let (v, reason, _) = verdict(&snap, "CertificateRequest");
    assert_eq!((v, reason.as_str()), (Progressing, "Pending"));
    // Past it: the issuer that does not exist is the cause.
    let snap = snap_at(&missing, "2026-12-01T23:40:00Z", true);
    for kind in ["CertificateRequest", "Certificate"] {
        let (v, reason, message) = verdict(&snap, kind);
        assert_eq!(
            (v, reason.as_str()),
            (Failed, "ReferenceNotFound"),
            "{kind}: {message}"
        );
        assert!(
            message.starts_with("waits on Issuer does-not-exist, which does not exist; "),
            "{message}"
        );
    }
    // Not read at all (forbidden): nothing is claimed about it. The
    // request's own wait is bounded as any other: Failed past the grace,
    // in its own words.
    let snap = snap_at(&missing, "2026-12-01T23:30:00Z", false);
    assert_eq!(verdict(&snap, "CertificateRequest").0, Progressing);
    let snap = snap_at(&missing, "2026-12-01T23:40:00Z", false);
    let (v, reason, message) = verdict(&snap, "CertificateRequest");
    assert_eq!((v, reason.as_str()), (Failed, "Pending"), "{message}");
    assert!(
        message.starts_with("no progress for 17m") && !message.contains("which does not exist"),
        "{message}"
    );
    // An issuer that is there but not ready (its CA Secret is missing).
    let snap = snap_at(
        &["cert-manager/issuer-not-ready/objects.yaml"],
        "2026-12-01T23:40:00Z",
        false,
    );
    let (v, reason, message) = verdict(&snap, "CertificateRequest");
    assert_eq!(
        (v, reason.as_str()),
        (Failed, "ReferenceNotReady"),
        "{message}"
    );
    assert!(
        message.starts_with("waits on Issuer ca, which is Failed (ErrGetKeyPair)"),
        "{message}"
    );
}

/// A custom resource of `kind` with this status, created 2026-11-29T22:00Z,
/// at generation 1, judged at [`NOW`] (30 minutes later) by the
/// conventions.
fn custom(kind: &str, status: serde_json::Value) -> (Verdict, String, String) {
    let obj = crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "example.io/v1", "kind": kind,
        "metadata": {"name": "x", "namespace": "ns", "uid": "u", "generation": 1,
            "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"size": 1},
        "status": status,
    }))
    .unwrap();
    let snap = crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let j = judge(&obj, &Judged::builtin(&snap));
    (j.verdict, j.reason.to_string(), j.message)
}

#[test]
fn long_tail_signals_are_read_by_their_words_and_shapes() {
    use serde_json::json;
    let cond = |t: &str, s: &str, reason: &str, at: &str| json!({"type": t, "status": s, "reason": reason, "message": "m", "lastTransitionTime": at});
    let old = "2026-11-29T22:00:00Z";
    let recent = "2026-11-29T22:28:00Z";
    #[rustfmt::skip]
    let cases: Vec<(&str, serde_json::Value, Verdict, &str)> = vec![
        // 1. Condition types by their last word, compound ones included.
        ("a compound health type True", json!({"conditions": [cond("RevisionHealthy", "True", "Healthy", old)]}), Converged, "RevisionHealthy"),
        ("a single Valid", json!({"conditions": [cond("Valid", "True", "", old)]}), Converged, "Valid"),
        ("a remote sync True", json!({"conditions": [cond("RemoteSynced", "True", "", old)]}), Converged, "RemoteSynced"),
        ("a compound health type False, recently", json!({"conditions": [cond("ChildrenResourcesHealthy", "False", "SomeChildren", recent)]}), Progressing, "SomeChildren"),
        ("a compound health type False for long", json!({"conditions": [cond("DaemonHealthy", "False", "SomeChildren", old)]}), Failed, "SomeChildren"),
        ("Orphan True", json!({"conditions": [cond("Orphan", "True", "OwnerDeleted", old)]}), Failed, "OwnerDeleted"),
        ("an Invalid… type True", json!({"conditions": [cond("InvalidSpecification", "True", "", old)]}), Failed, "InvalidSpecification"),
        ("a type of trouble listed without a status (Argo CD's)", json!({"health": {"status": "Healthy"}, "conditions": [{"type": "ComparisonError", "message": "rpc error: repository not found", "lastTransitionTime": old}]}), Failed, "ComparisonError"),
        ("a type of good news listed without a status", json!({"conditions": [{"type": "Ready", "message": "m"}]}), Progressing, "NotReady"),
        ("…UpToDate True", json!({"conditions": [cond("ErrorOccurred", "False", "UpToDate", old), cond("ResourcesUpToDate", "True", "UpToDate", old)]}), Converged, "ResourcesUpToDate"),
        ("…UpToDate False for long", json!({"conditions": [cond("ResourcesUpToDate", "False", "ApplicationGenerationFailed", old)]}), Failed, "ApplicationGenerationFailed"),
        ("Failing beside Available (OpenShift's ClusterVersion)", json!({"conditions": [cond("Available", "True", "", old), cond("Failing", "True", "ClusterOperatorDegraded", old)]}), Failed, "ClusterOperatorDegraded"),
        ("No… False for long (RabbitMQ's NoWarnings)", json!({"conditions": [cond("AllReplicasReady", "True", "", old), cond("NoWarnings", "False", "MemoryAlarm", old)]}), Failed, "MemoryAlarm"),
        ("No… True", json!({"conditions": [cond("AllReplicasReady", "True", "", old), cond("NoWarnings", "True", "NoWarnings", old)]}), Converged, "AllReplicasReady"),
        ("a scaling under way beside Ready", json!({"conditions": [cond("Ready", "True", "", old), cond("ScalingUp", "True", "", recent)]}), Progressing, "ScalingUp"),
        ("a rolling update beside Ready", json!({"conditions": [cond("Ready", "True", "", old), cond("RollingUpdate", "True", "", recent)]}), Progressing, "RollingUpdate"),
        ("…InProgress beside Ready", json!({"conditions": [cond("Ready", "True", "", old), cond("UpgradeInProgress", "True", "BothActivePendingClustersExist", recent)]}), Progressing, "BothActivePendingClustersExist"),
        ("…Provisioned False beside a ready part, recently", json!({"conditions": [cond("HeadPodReady", "True", "HeadPodRunningAndReady", old), cond("RayClusterProvisioned", "False", "RayClusterPodsProvisioning", recent)]}), Progressing, "RayClusterPodsProvisioning"),
        // 2. Status maps keyed by reporter.
        ("every reporter accepts", json!({"statuses": {"gloo-system": {"state": "Accepted"}, "edge": {"state": "Accepted"}}}), Converged, "Accepted"),
        ("one reporter rejects", json!({"statuses": {"gloo-system": {"state": "Accepted"}, "edge": {"state": "Rejected", "reason": "bad route"}}}), Failed, "Rejected"),
        ("one reporter warns", json!({"statuses": {"gloo-system": {"state": "Warning"}}}), Failed, "Warning"),
        ("a sub-resource rejected below an accepting reporter", json!({"statuses": {"gloo-system": {"reportedBy": "gateway", "state": "Accepted", "subresourceStatuses": {"*v1.Proxy.gateway-proxy_gloo-system": {"reportedBy": "gloo", "state": "Rejected", "reason": "invalid route"}}}}}), Failed, "Rejected"),
        ("every sub-resource accepted", json!({"statuses": {"gloo-system": {"reportedBy": "gateway", "state": "Accepted", "subresourceStatuses": {"*v1.Proxy.gateway-proxy_gloo-system": {"reportedBy": "gloo", "state": "Accepted"}}}}}), Converged, "Accepted"),
        ("conditions by namespace, one failing", json!({"conditionsByNamespace": {"shop": [cond("Ready", "True", "Synced", old)], "billing": [cond("Ready", "False", "SecretNotFound", old)]}}), Failed, "SecretNotFound"),
        ("conditions by namespace, all ready", json!({"conditionsByNamespace": {"shop": [cond("Ready", "True", "Synced", old)], "billing": [cond("Ready", "True", "Synced", old)]}}), Converged, "Ready"),
        ("old conditions kept as a record are not a part", json!({"conditions": [cond("Available", "True", "", old)], "deprecated": {"v1beta1": {"conditions": [cond("Ready", "False", "WaitingForInfrastructure", old)]}}}), Converged, "Available"),
        ("conditions per cluster, one degraded", json!({"clusters": {"east": {"conditions": [cond("Degraded", "True", "QuorumLost", old)]}, "west": {"conditions": [cond("Ready", "True", "", old)]}}}), Failed, "QuorumLost"),
        ("a member's state", json!({"brokersState": {"0": {"configurationState": "ConfigInSync"}, "1": {"configurationState": "ConfigOutOfSync", "gracefulActionState": {"errorMessage": ""}}}}), Progressing, "ConfigOutOfSync"),
        // Work under way is bounded, counted from its condition's own
        // transition; a wait on another object is not.
        ("Ready=False Reconciling for long", json!({"conditions": [cond("Ready", "False", "Reconciling", old)]}), Failed, "Reconciling"),
        ("Ready=False Creating, recently", json!({"conditions": [cond("Ready", "False", "Creating", recent)]}), Progressing, "Creating"),
        ("Reconciling=True for long", json!({"conditions": [cond("Reconciling", "True", "Progressing", old)]}), Failed, "Progressing"),
        ("Issuing=True, recently", json!({"conditions": [cond("Issuing", "True", "Issuing", recent)]}), Progressing, "Issuing"),
        ("a dependency not ready for long", json!({"conditions": [cond("Ready", "False", "DependencyNotReady", old)]}), Progressing, "DependencyNotReady"),
        ("waiting for another object for long", json!({"conditions": [cond("Ready", "False", "WaitingForControlPlane", old)]}), Progressing, "WaitingForControlPlane"),
        ("a phase of work under way in words", json!({"phase": "Setting up primary"}), Progressing, "InProgress"),
        // Cluster API's terminal failure fields, whatever the state says.
        ("a failure reason beside an active state", json!({"state": "Active", "failureReason": "AttachFailed", "failureMessage": "cannot attach volume"}), Failed, "AttachFailed"),
        ("a failure message alone", json!({"conditions": [cond("Ready", "True", "", old)], "failureMessage": "instance terminated"}), Failed, "Failed"),
        ("empty failure fields", json!({"state": "Active", "failureReason": "", "failureMessage": ""}), Converged, "Active"),
        // A list of messages with one of level ERROR (Istio's).
        ("a validation message of level ERROR", json!({"observedGeneration": "1", "validationMessages": [{"documentationUrl": "https://istio.io/latest/docs/reference/config/analysis/ist0101/", "level": "ERROR", "type": {"code": "IST0101"}}], "conditions": [cond("Reconciled", "True", "", old)]}), Failed, "Error"),
        ("validation messages of level WARNING only", json!({"validationMessages": [{"level": "WARNING", "type": {"code": "IST0118"}}], "conditions": [cond("Reconciled", "True", "", old)]}), Converged, "Reconciled"),
        // A count written as text, as kubectl shows one.
        ("a written count short", json!({"scale": {"replicas": 3, "statusReplicas": "2/3"}}), Progressing, "WaitingForReplicas"),
        ("a written count whole", json!({"scale": {"replicas": 3, "statusReplicas": "3/3"}}), Converged, "Current"),
        // A count nested under a name of its own.
        ("nodes short of their total", json!({"nodes": {"total": 3, "ready": 2}}), Progressing, "WaitingForReplicas"),
        // A rollout under way beside Available=True (OpenShift's operators).
        ("Progressing=True Reconciling beside Available, recently", json!({"conditions": [cond("Available", "True", "AsExpected", old), cond("Progressing", "True", "Reconciling", recent), cond("Degraded", "False", "AsExpected", old)]}), Progressing, "Reconciling"),
        ("Progressing=True Reconciling for long", json!({"conditions": [cond("Progressing", "True", "Reconciling", old)]}), Failed, "Reconciling"),
        ("Progressing=True, the rollout done", json!({"conditions": [cond("Available", "True", "MinimumReplicasAvailable", old), cond("Progressing", "True", "NewReplicaSetAvailable", old)]}), Converged, "Available"),
        // Members of a map that say by a boolean they are not well.
        ("a member unhealthy while the whole is ready", json!({"conditions": [cond("Ready", "True", "", old)], "componentStatuses": {"api": {"healthy": true}, "worker": {"healthy": false, "message": "crash loop"}}}), Progressing, "Failed"),
        ("a member unhealthy", json!({"components": {"api": {"healthy": true}, "worker": {"healthy": false}}}), Failed, "Failed"),
        ("a member not ready yet", json!({"nodes": {"n-0": {"ready": true}, "n-1": {"ready": false}}}), Progressing, "NotReady"),
        ("every member well", json!({"conditions": [cond("Ready", "True", "", old)], "componentStatuses": {"api": {"healthy": true}, "worker": {"healthy": true}}}), Converged, "Ready"),
        // 3. Booleans at the top of status.
        ("healthy true", json!({"healthy": true}), Converged, "Current"),
        ("valid false", json!({"valid": false}), Failed, "Unhealthy"),
        ("a …Healthy false", json!({"clusterHealthy": false}), Failed, "Unhealthy"),
        ("available false", json!({"available": false}), Progressing, "NotAvailable"),
        ("applied false", json!({"applied": false, "message": "role \"ghost\" does not exist"}), Progressing, "InProgress"),
        ("applied true", json!({"applied": true}), Converged, "Current"),
        ("a finished run that did not pass", json!({"state": "Completed", "pass": false}), Failed, "Unhealthy"),
        ("a finished run with a failed result", json!({"state": "Completed", "result": "Failed"}), Failed, "Failed"),
        // 5. Empty reports.
        ("only identifiers and no conditions", json!({"conditions": [], "ackResourceMetadata": {"arn": "arn:aws:s3:::x", "ownerAccountID": "1"}}), Unknown, "NoStatus"),
        // 7. Operation records.
        ("an operation processing", json!({"lastOperation": {"state": "Processing", "type": "Create"}}), Progressing, "Processing"),
        ("an operation that succeeded with errors", json!({"lastOperation": {"state": "Succeeded"}, "lastErrors": [{"description": "quota", "code": "ERR"}]}), Failed, "Error"),
        ("a current state short of the desired one", json!({"currentState": "Stopped", "desiredState": "Running"}), Progressing, "InProgress"),
    ];
    let mut wrong = Vec::new();
    for (name, status, verdict, reason) in cases {
        let (v, r, m) = custom("Gadget", status);
        if v != verdict || r != reason {
            wrong.push(format!("{name}: want {verdict} {reason}, got {v} {r}: {m}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
    // A run takes the time it takes: its work under way is not bounded,
    // though a Gadget's is.
    let long = json!({"conditions": [cond("Ready", "False", "InProgress", old)]});
    assert_eq!(custom("Backup", long.clone()).0, Progressing);
    assert_eq!(custom("Gadget", long).0, Failed);
    // A status holding only identifiers, young: waiting for its controller.
    let obj = crate::model::Object::from_value(json!({
        "apiVersion": "s3.services.k8s.aws/v1alpha1", "kind": "Bucket",
        "metadata": {"name": "b", "namespace": "ns", "uid": "b", "generation": 1,
            "creationTimestamp": "2026-11-29T22:29:40Z"},
        "spec": {"name": "b"},
        "status": {"ackResourceMetadata": {"ownerAccountID": "1"}, "conditions": []}}))
    .unwrap();
    let snap = crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Progressing, "WaitingForController"),
        "{}",
        j.message
    );
    assert!(
        j.message.contains("ackResourceMetadata, conditions: []"),
        "{}",
        j.message
    );
}

#[test]
fn one_pod_no_node_can_take_fails_a_rollout_past_the_grace() {
    use serde_json::json;
    let o = |v: serde_json::Value| crate::model::Object::from_value(v).unwrap();
    let owner = |kind: &str, name: &str, uid: &str| json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true}]);
    let running = |name: &str| {
        o(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "uid": name, "creationTimestamp": "2026-11-29T22:00:00Z",
                "ownerReferences": owner("ReplicaSet", "web-1", "rs")},
            "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "web:1"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T22:00:05Z"}],
                "containerStatuses": [{"name": "web", "ready": true, "started": true, "restartCount": 0, "image": "web:1",
                    "state": {"running": {"startedAt": "2026-11-29T22:00:03Z"}}}]}}))
    };
    let objects = vec![
        o(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "d", "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"observedGeneration": 1, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2,
                "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                               {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]}})),
        o(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "rs", "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z",
                "annotations": {"deployment.kubernetes.io/revision": "1"}, "ownerReferences": owner("Deployment", "web", "d")},
            "spec": {"replicas": 3},
            "status": {"observedGeneration": 1, "replicas": 3, "readyReplicas": 2, "availableReplicas": 2}})),
        running("web-1-a"),
        running("web-1-b"),
        o(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1-c", "namespace": "shop", "uid": "c", "creationTimestamp": "2026-11-29T22:20:00Z",
                "ownerReferences": owner("ReplicaSet", "web-1", "rs")},
            "spec": {"containers": [{"name": "web", "image": "web:1"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/2 nodes are available: 2 Insufficient cpu.", "lastTransitionTime": "2026-11-29T22:20:00Z"}]}})),
    ];
    let verdict = |now: &str, fail_fast: bool| {
        let snap =
            crate::model::Snapshot::new(objects.clone(), vec![], vec![], now.parse().unwrap());
        let judge_ = super::Judge {
            failure_grace: fail_fast.then_some(jiff::SignedDuration::ZERO),
            ..super::Judge::builtin().clone()
        };
        let d = snap
            .objects()
            .iter()
            .find(|x| x.kind() == "Deployment")
            .unwrap();
        let j = judge(d, &judge_.on(&snap));
        (j.verdict, j.reason.to_string(), j.message)
    };
    // A minute in: still waiting, without --fail-fast.
    let (v, _, m) = verdict("2026-11-29T22:21:00Z", false);
    assert_eq!(v, Progressing, "{m}");
    // Past the hard-failure grace, or at once under --fail-fast: Failed.
    for (now, fail_fast) in [
        ("2026-11-29T22:30:00Z", false),
        ("2026-11-29T22:20:30Z", true),
    ] {
        let (v, reason, m) = verdict(now, fail_fast);
        assert_eq!((v, reason.as_str()), (Failed, "Unschedulable"), "{m}");
        assert!(m.starts_with("Pod web-1-c Unschedulable"), "{m}");
    }
}

#[test]
fn a_custom_pod_set_whose_pods_all_fail_hard_is_failed() {
    use serde_json::json;
    let o = |v: serde_json::Value| crate::model::Object::from_value(v).unwrap();
    let pod = |name: &str| {
        o(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": name, "creationTimestamp": "2026-11-29T22:00:00Z",
                "ownerReferences": [{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "name": "web", "uid": "cs", "controller": true}]},
            "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "unpullable.invalid/app:1"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-11-29T22:00:00Z"}],
                "containerStatuses": [{"name": "web", "ready": false, "restartCount": 0, "image": "unpullable.invalid/app:1",
                    "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"unpullable.invalid/app:1\""}}}]}}))
    };
    let set = o(
        json!({"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
        "metadata": {"name": "web", "namespace": "ns", "uid": "cs", "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, "replicas": 2, "readyReplicas": 0, "availableReplicas": 0, "updatedReplicas": 2}}),
    );
    let snap = crate::model::Snapshot::new(
        vec![set.clone(), pod("web-a"), pod("web-b")],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let j = judge(&set, &Judged::builtin(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Failed, "ImagePullBackOff"),
        "{}",
        j.message
    );
    assert!(
        j.message.contains("all 2 new pods failing"),
        "{}",
        j.message
    );
    // Without its pods the counts alone say it waits.
    let alone =
        crate::model::Snapshot::new(vec![set.clone()], vec![], vec![], NOW.parse().unwrap());
    assert_eq!(judge(&set, &Judged::builtin(&alone)).verdict, Progressing);
}

/// A Challenge as cert-manager's ACME solver leaves it while its HTTP-01
/// self-check fails (acme.cert-manager.io/v1 ChallengeStatus: `state`,
/// `reason`, `processing`, `presented`), created `created`, judged at NOW
/// with `grace` as `--failure-grace`.
fn challenge(created: &str, reason: &str, grace: Option<jiff::SignedDuration>) -> Judgement {
    let obj = crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "acme.cert-manager.io/v1", "kind": "Challenge",
        "metadata": {"name": "web-tls-1-2773541215-1791214425", "namespace": "shop", "uid": "c", "generation": 1,
            "creationTimestamp": created},
        "spec": {"type": "HTTP-01", "dnsName": "shop.example.com", "token": "t", "key": "k", "url": "https://acme.example/chall/1",
            "solver": {"http01": {"ingress": {"ingressClassName": "nginx"}}},
            "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer", "group": "cert-manager.io"}},
        "status": {"processing": true, "presented": true, "state": "pending", "reason": reason},
    }))
    .unwrap();
    let snap = crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let judged = Judged::builtin(&snap);
    let judge_with = crate::verdict::Judge {
        failure_grace: grace,
        ..judged.judge.clone()
    };
    judge(&obj, &judge_with.on(&snap))
}

#[test]
fn a_wait_on_an_error_the_object_names_is_bounded() {
    let self_check =
        "Waiting for HTTP-01 challenge propagation: wrong status code '404', expected '200'";
    // Thirty minutes on a failing self-check: the error is the cause.
    let j = challenge("2026-11-29T22:00:00Z", self_check, None);
    assert_eq!(j.verdict, Failed, "{j:?}");
    assert_eq!(j.reason.to_string(), "Pending");
    assert!(
        j.message.contains("waiting on an error for 30m") && j.message.contains("'404'"),
        "{}",
        j.message
    );
    // A minute in: the solver may still be setting up; at once under
    // --fail-fast.
    let young = "2026-11-29T22:29:00Z";
    assert_eq!(challenge(young, self_check, None).verdict, Progressing);
    let fast = challenge(young, self_check, Some(jiff::SignedDuration::ZERO));
    assert_eq!(fast.verdict, Failed, "{fast:?}");
    // No error named, no time to count from but the creation: a state
    // word alone says nothing of when it began.
    let plain = challenge(
        "2026-11-29T22:00:00Z",
        "Waiting for HTTP-01 challenge propagation",
        None,
    );
    assert_eq!(plain.verdict, Progressing, "{plain:?}");
}

#[test]
fn under_way_words_with_a_time_are_bounded_and_failed_members_are_named() {
    use serde_json::json;
    let ready = |s: &str, at: &str| json!({"type": "Ready", "status": s, "reason": "x", "message": "", "lastTransitionTime": at});
    #[rustfmt::skip]
    let cases: Vec<(&str, serde_json::Value, Verdict, &str)> = vec![
        ("a phase under way, updated 20m ago", json!({"phase": "Provisioning", "lastUpdated": "2026-11-29T22:10:00Z"}), Failed, "no progress for 20m"),
        ("a phase under way, updated 5m ago", json!({"phase": "Provisioning", "lastUpdated": "2026-11-29T22:25:00Z"}), Progressing, "status.phase is Provisioning"),
        ("a failed instance listed, not ready", json!({"instancesStatus": {"healthy": ["db-2", "db-3"], "failed": ["db-1"]}, "conditions": [ready("False", "2026-11-29T22:28:00Z")]}), Failed, "status.instancesStatus.failed lists db-1"),
        ("a failed member, the whole ready", json!({"failedMembers": [{"name": "m-0"}], "conditions": [ready("True", "2026-11-29T22:00:00Z")]}), Progressing, "degraded: status.failedMembers lists m-0"),
        ("a count of failures is not a list", json!({"failed": 2, "conditions": [ready("True", "2026-11-29T22:00:00Z")]}), Converged, ""),
        ("an empty failed list", json!({"unhealthyNodes": [], "conditions": [ready("True", "2026-11-29T22:00:00Z")]}), Converged, ""),
    ];
    assert_says(cases);
}

#[test]
fn a_builtin_rule_without_a_message_speaks_in_the_objects_words() {
    let j = challenge("2026-11-29T22:29:00Z", "", None);
    assert_eq!(j.message, "status.state is pending", "{j:?}");
    assert!(!j.message.contains("health rule"));
}

#[test]
fn counts_under_other_names_are_read() {
    use serde_json::json;
    #[rustfmt::skip]
    let cases: Vec<(&str, serde_json::Value, Verdict, &str)> = vec![
        ("a health check short of machines", json!({"expectedMachines": 3, "currentHealthy": 1}), Progressing, "1/3 machines healthy"),
        ("nodes short", json!({"expectedNodes": 4, "readyNodes": 4, "availableNodes": 2}), Progressing, "2/4 nodes available"),
        ("a desired/current/ready triple short", json!({"desired": 3, "current": 3, "ready": 2}), Progressing, "2/3 ready"),
        ("a rack short of members", json!({"racks": {"eu-1a": {"members": 3, "readyMembers": 3}, "eu-1b": {"members": 3, "readyMembers": 1}}}), Progressing, "racks.eu-1b: 1/3 members ready"),
        ("a pool short", json!({"pools": {"size": 5, "ready": 4}}), Progressing, "pools: 4/5 ready"),
        ("every machine healthy", json!({"expectedMachines": 3, "currentHealthy": 3}), Converged, "3/3 machines healthy"),
        ("a complete triple", json!({"desired": 3, "current": 3, "ready": 3}), Converged, "3/3 ready"),
        ("nothing expected is no evidence", json!({"desired": 0, "current": 0}), Unknown, ""),
    ];
    assert_says(cases);
}

/// A CRD as an operator ships it: printer columns for `kubectl get` and a
/// state field declared with an enum, under names no convention reads.
fn gadget_crd() -> crate::model::Object {
    crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.io", "uid": "crd"},
        "spec": {"group": "example.io", "scope": "Namespaced",
            "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Lifecycle", "type": "string", "jsonPath": ".status.lifecycle"},
                    {"name": "Status", "type": "string", "jsonPath": ".status.summary.text"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"status": {"type": "object", "properties": {
                    "stage": {"type": "string", "enum": ["Queued", "Provisioning", "Ready", "Failed"]},
                    "summary": {"type": "object", "properties": {"text": {"type": "string"}}}}}}}}}]}
    }))
    .unwrap()
}

#[test]
fn a_kind_no_convention_reads_is_judged_by_its_crds_columns_and_enums() {
    use serde_json::json;
    let cases = [
        (
            json!({"summary": {"text": "Failed"}}),
            Failed,
            "column Status (.status.summary.text) is Failed",
        ),
        (
            json!({"summary": {"text": "Ready"}}),
            Converged,
            "column Status (.status.summary.text) is Ready",
        ),
        (
            json!({"stage": "Provisioning"}),
            Progressing,
            "status.stage (an enum of the CRD) is Provisioning",
        ),
        (
            json!({"stage": "Ready", "summary": {"text": "Failed"}}),
            Failed,
            "is Failed",
        ),
    ];
    for (status, verdict, said) in cases {
        let obj = crate::model::Object::from_value(json!({
            "apiVersion": "example.io/v1", "kind": "Gadget",
            "metadata": {"name": "x", "namespace": "ns", "uid": "u", "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z"},
            "status": status.clone()}))
        .unwrap();
        let with_crd = crate::model::Snapshot::new(
            vec![obj.clone(), gadget_crd()],
            vec![],
            vec![],
            NOW.parse().unwrap(),
        );
        let j = judge(&obj, &Judged::builtin(&with_crd));
        assert_eq!(
            (j.verdict, j.message.contains(said)),
            (verdict, true),
            "{status}: {j:?}"
        );
        // Without the CRD in the answer: the conventions alone, as before.
        let alone =
            crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
        assert_eq!(
            judge(&obj, &Judged::builtin(&alone)).reason.to_string(),
            "NoHealthSignal",
            "{status}"
        );
    }
}

/// Each custom Gadget status is judged `verdict` with a message that holds
/// `said`; every miss is listed.
fn assert_says(cases: Vec<(&str, serde_json::Value, Verdict, &str)>) {
    let mut wrong = Vec::new();
    for (name, status, verdict, said) in cases {
        let (v, r, m) = custom("Gadget", status);
        if v != verdict || !m.contains(said) {
            wrong.push(format!("{name}: want {verdict} ({said}), got {v} {r}: {m}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_datacenter_stopped_on_purpose_is_suspended() {
    // cass-operator's CassandraDatacenter with spec.stopped: its pods are
    // scaled to zero on purpose, Ready=False, Stopped=True.
    let obj = crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "cassandra.datastax.com/v1beta1", "kind": "CassandraDatacenter",
        "metadata": {"name": "dc1", "namespace": "db", "uid": "dc1", "generation": 4,
            "creationTimestamp": "2026-11-29T20:00:00Z"},
        "spec": {"clusterName": "main", "serverType": "cassandra", "serverVersion": "4.1.5",
            "size": 3, "stopped": true},
        "status": {"observedGeneration": 4, "cassandraOperatorProgress": "Ready",
            "conditions": [
                {"type": "Ready", "status": "False", "lastTransitionTime": "2026-11-29T21:00:00Z"},
                {"type": "Stopped", "status": "True", "lastTransitionTime": "2026-11-29T21:00:00Z"}]}
    }))
    .unwrap();
    let snap = crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(j.verdict, Suspended, "{} {}", j.reason, j.message);
    assert!(j.message.contains("spec.stopped"), "{}", j.message);
}

#[test]
fn a_stop_said_anywhere_it_is_said_is_suspended_and_a_setting_of_one_is_not() {
    let judged = |v: serde_json::Value| {
        let obj = crate::model::Object::from_value(v).unwrap();
        let snap =
            crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
        judge(&obj, &Judged::builtin(&snap))
    };
    let ready = serde_json::json!({"observedGeneration": 2, "conditions": [
        {"type": "Ready", "status": "True", "reason": "Ready", "lastTransitionTime": "2026-11-29T21:00:00Z"}]});
    let object = |api: &str,
                  kind: &str,
                  annotations: serde_json::Value,
                  spec: serde_json::Value,
                  status: &serde_json::Value| {
        serde_json::json!({"apiVersion": api, "kind": kind,
            "metadata": {"name": "x", "namespace": "ns", "uid": "x", "generation": 2,
                "creationTimestamp": "2026-11-29T20:00:00Z", "annotations": annotations},
            "spec": spec, "status": status})
    };
    let none = serde_json::json!({});
    let stops = [
        // KEDA: a ScaledObject paused by its annotation, its Paused
        // condition True beside Ready=True.
        (
            "KEDA paused-replicas",
            object(
                "keda.sh/v1alpha1",
                "ScaledObject",
                serde_json::json!({"autoscaling.keda.sh/paused-replicas": "0"}),
                serde_json::json!({"scaleTargetRef": {"name": "web"}}),
                &ready,
            ),
            "annotation autoscaling.keda.sh/paused-replicas",
        ),
        (
            "KEDA Paused condition",
            object(
                "keda.sh/v1alpha1",
                "ScaledObject",
                none.clone(),
                serde_json::json!({"scaleTargetRef": {"name": "web"}}),
                &serde_json::json!({"conditions": [
                    {"type": "Ready", "status": "True", "reason": "ScaledObjectReady", "lastTransitionTime": "2026-11-29T21:00:00Z"},
                    {"type": "Paused", "status": "True", "reason": "ScaledObjectPaused", "message": "ScaledObject is paused", "lastTransitionTime": "2026-11-29T21:10:00Z"}]}),
            ),
            "Paused=True",
        ),
        // Kubeflow's training operator: runPolicy.suspend.
        (
            "Kubeflow runPolicy.suspend",
            object(
                "kubeflow.org/v1",
                "PyTorchJob",
                none.clone(),
                serde_json::json!({"runPolicy": {"suspend": true}, "pytorchReplicaSpecs": {}}),
                &ready,
            ),
            "spec.runPolicy.suspend",
        ),
        // Percona's operators: spec.pause.
        (
            "Percona spec.pause",
            object(
                "pxc.percona.com/v1",
                "PerconaXtraDBCluster",
                none.clone(),
                serde_json::json!({"pause": true, "crVersion": "1.15.0"}),
                &ready,
            ),
            "spec.pause",
        ),
        // A kind no rule or pack names: a stop said as text.
        (
            "unnamed spec.stop yes",
            object(
                "example.org/v1",
                "Appliance",
                none.clone(),
                serde_json::json!({"stop": "yes"}),
                &ready,
            ),
            "spec.stop",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, obj, said) in stops {
        let j = judged(obj);
        if j.verdict != Suspended || !j.message.contains(said) {
            wrong.push(format!("{name}: {} {} {}", j.verdict, j.reason, j.message));
        }
    }
    // A setting of a stop, or a stop said no, is no stop.
    let settings = [
        (
            "suspendOnFailure",
            serde_json::json!({"suspendOnFailure": true}),
        ),
        ("stopSignal", serde_json::json!({"stopSignal": "SIGTERM"})),
        (
            "shutdownGracePeriod",
            serde_json::json!({"lifecycle": {"shutdownGracePeriod": "30s"}}),
        ),
        (
            "pause false",
            serde_json::json!({"pause": false, "runPolicy": {"suspend": "no"}}),
        ),
    ];
    for (name, spec) in settings {
        let j = judged(object(
            "example.org/v1",
            "Appliance",
            none.clone(),
            spec,
            &ready,
        ));
        if j.verdict != Converged {
            wrong.push(format!("{name}: {} {} {}", j.verdict, j.reason, j.message));
        }
    }
    let j = judged(object(
        "example.org/v1",
        "Appliance",
        serde_json::json!({"example.org/resource-stopped": "false"}),
        serde_json::json!({}),
        &ready,
    ));
    if j.verdict != Converged {
        wrong.push(format!(
            "annotation said false: {} {}",
            j.verdict, j.message
        ));
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_built_in_kind_s_problem_condition_reads_as_a_custom_resource_s_does() {
    // API Priority and Fairness marks a FlowSchema whose priority level is
    // missing Dangling=True; built-in kinds without a rule of their own
    // are read by the same table of condition types.
    let obj = crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
        "metadata": {"name": "team-a", "uid": "fs", "generation": 1,
            "creationTimestamp": "2026-11-29T20:00:00Z"},
        "spec": {"matchingPrecedence": 500, "priorityLevelConfiguration": {"name": "no-such-level"}},
        "status": {"conditions": [{"type": "Dangling", "status": "True",
            "reason": "NotFound",
            "message": "This FlowSchema references the PriorityLevelConfiguration object named \"no-such-level\" but there is no such object",
            "lastTransitionTime": "2026-11-29T20:00:01Z"}]}
    }))
    .unwrap();
    let snap = crate::model::Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_eq!(j.verdict, Failed, "{} {}", j.reason, j.message);
    assert!(j.message.contains("Dangling=True"), "{}", j.message);
}
