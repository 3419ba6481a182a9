# Shared settings for the test control plane scripts (sourced, not run).
# Pinned versions: change them together with the wrapper modules under modules/.
KUBE_VERSION=v1.36.3
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
# Not part of the cluster: krew, for the packaging tests (`build krew`).
KREW_VERSION=v0.4.3
# Operators run on demand against the cluster (`build operators`, ./operator).
# Each is the newest release the Go module proxy serves that builds on Go 1.26
# (README, "Operators").
ARGO_ROLLOUTS_VERSION=v1.8.5
PROMETHEUS_OPERATOR_VERSION=v0.85.0
CERT_MANAGER_VERSION=v1.11.5
EXTERNAL_SECRETS_VERSION=v0.16.2

CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_ROOT=${KUBECTL_RECONCILE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-reconcile-test}
# State of the running cluster: certificates, kubeconfigs, etcd data, logs.
STATE_DIR=${KUBECTL_RECONCILE_TEST_STATE:-$CACHE_ROOT/cluster}
BIN_ROOT=$CACHE_ROOT/bin

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] error: %s\n' "$*" >&2; exit 1; }

# bin_dir MODULE VERSION: the cache folder for one wrapper module's binaries,
# keyed by the pinned version and by the module's go.sum (and its build-time
# patches, where it has any), so that a change of either builds afresh and
# nothing else does.
bin_dir() {
  local sum m=$CLUSTER_DIR/modules/$1
  sum=$(cat "$m/go.mod" "$m/go.sum" $([ -f "$m/patches" ] && echo "$m/patches") | sha256sum | cut -c1-12)
  printf '%s/%s-%s-%s\n' "$BIN_ROOT" "$1" "$2" "$sum"
}
KUBE_BIN=$(bin_dir kubernetes "$KUBE_VERSION")
ETCD_BIN=$(bin_dir etcd "$ETCD_VERSION")
KWOK_BIN=$(bin_dir kwok "$KWOK_VERSION")
KREW_BIN=$(bin_dir krew "$KREW_VERSION")
ARGO_ROLLOUTS_BIN=$(bin_dir argo-rollouts "$ARGO_ROLLOUTS_VERSION")
PROMETHEUS_OPERATOR_BIN=$(bin_dir prometheus-operator "$PROMETHEUS_OPERATOR_VERSION")
CERT_MANAGER_BIN=$(bin_dir cert-manager "$CERT_MANAGER_VERSION")
EXTERNAL_SECRETS_BIN=$(bin_dir external-secrets "$EXTERNAL_SECRETS_VERSION")
