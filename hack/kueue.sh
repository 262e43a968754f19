#!/usr/bin/env bash
# Kueue (Apache-2.0), the job queueing the e2e suite runs campaigns under (docs/kueue.md):
# built once from the Go module proxy into .cache/tools/kueue-<version> (one binary per version,
# as hack/kwok.sh does), with its CRDs and manifests from the same module version.
#
#   hack/kueue.sh             build when missing, print the binary's path
#   hack/kueue.sh --path      print the path only, built or not
#   hack/kueue.sh manifests   render the install (CRDs, RBAC, webhooks, the manager) into
#                             .cache/kueue/<version>/kueue.yaml and print its path
#   hack/kueue.sh up          build, image (hack/images.sh kueue), import into the local cluster,
#                             install, wait until its webhooks answer, then the queues below;
#                             idempotent
#   hack/kueue.sh queue NS    a LocalQueue "sweep" in namespace NS, feeding the ClusterQueue
#   hack/kueue.sh down        uninstall: the queues, the webhooks, then everything else
#
# Queues made by up: ResourceFlavor sweep-default; ClusterQueue sweep with a quota of
# KUEUE_PODS Pods (default 1, so a campaign's parallelism exceeds it) and room for any CPU and
# memory, preempting lower-priority workloads within itself; WorkloadPriorityClasses
# sweep-agent (100), sweep-verifier (1000) and sweep-urgent (10000).
#
# What differs from Kueue's config/default here, and why (the local cluster of hack/cluster.sh):
#   - only the batch/job integration: the pod, deployment and statefulset webhooks are limited to
#     namespaces labelled kueue.x-k8s.io/managed-pods=true (none is), so Pods outside Kueue
#     never wait on its webhook;
#   - the visibility API (an aggregated API server) is off (feature gate VisibilityOnDemand)
#     and its APIServices are not installed: the local API server has no front-proxy
#     certificates to call an aggregated server with;
#   - the manager image is built here without Docker, its Pod asks for less CPU and memory;
#   - leader election is off (one replica).
# The webhooks are reached by the API server through the webhook Service's endpoints: the local
# cluster has no kube-proxy, so hack/cluster.sh starts kube-apiserver with
# --enable-aggregator-routing=true, which resolves webhook Services to their endpoints.
#   KUBECONFIG   the cluster (default: the local cluster of hack/cluster.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/local/go/bin:$PATH
KUEUE_VERSION=${KUEUE_VERSION:-v0.17.0}
KUEUE_PODS=${KUEUE_PODS:-1}
mod=sigs.k8s.io/kueue
bin=$root/.cache/tools/kueue-$KUEUE_VERSION
work=$root/.cache/kueue/$KUEUE_VERSION
cluster=$(realpath -m "${CLUSTER_DIR:-$root/.cache/cluster}")
export KUBECONFIG=${KUBECONFIG:-$cluster/kubeconfig}
kubectl=${KUBECTL:-$root/bin/k8s/kubectl}
command -v "$kubectl" >/dev/null || kubectl=kubectl
kc() { "$kubectl" "$@"; }
T0=$(date +%s)
say() { echo "[kueue $(( $(date +%s) - T0 ))s] $*" >&2; }

build() {
  [ -x "$bin" ] && return
  say "building kueue $KUEUE_VERSION (once, into ${bin#$root/})"
  mkdir -p "$root/.cache/tools"
  local tmp; tmp=$(mktemp -d "$root/.cache/tools/build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # A GOBIN of its own so a half-built binary never takes the versioned name; static, as
  # Kueue's own image is; -p 2 for this kind of machine.
  CGO_ENABLED=0 GOBIN=$tmp go install -p "${BUILD_PARALLELISM:-2}" -ldflags "-s -w" "$mod/cmd/kueue@$KUEUE_VERSION"
  mv "$tmp/kueue" "$bin"
  rm -rf "$tmp"
  trap - EXIT
  say "built kueue"
}

# manifests: Kueue's config/default of the same module version, through a kustomization of
# ours that changes what the header says.
manifests() {
  local dir ref rel
  dir=$(go mod download -json "$mod@$KUEUE_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -d "$dir/config/default" ] || { echo "no config/default in $dir" >&2; exit 1; }
  ref=$(cat "$root/.cache/images/kueue.ref" 2>/dev/null) || { echo "no kueue image: run hack/images.sh kueue" >&2; exit 1; }
  mkdir -p "$work"
  rel=$(realpath --relative-to="$work" "$dir/config/default")
  local webhooks="" w kind
  for w in pod deployment statefulset; do
    for kind in m v; do
      webhooks+="
- patch: |-
    apiVersion: admissionregistration.k8s.io/v1
    kind: $( [ $kind = m ] && echo Mutating || echo Validating )WebhookConfiguration
    metadata:
      name: kueue-$( [ $kind = m ] && echo mutating || echo validating )-webhook-configuration
    webhooks:
    - name: $kind$w.kb.io
      namespaceSelector:
        matchLabels:
          kueue.x-k8s.io/managed-pods: \"true\""
    done
  done
  cat > "$work/kustomization.yaml" <<EOF
# Written by hack/kueue.sh from $mod@$KUEUE_VERSION; see its header.
resources:
- $rel
images:
- name: us-central1-docker.pkg.dev/k8s-staging-images/kueue/kueue
  newName: ${ref%:*}
  newTag: ${ref##*:}
patches:
- patch: |-
    \$patch: delete
    apiVersion: apiregistration.k8s.io/v1
    kind: APIService
    metadata:
      name: v1beta1.visibility.kueue.x-k8s.io
- patch: |-
    \$patch: delete
    apiVersion: apiregistration.k8s.io/v1
    kind: APIService
    metadata:
      name: v1beta2.visibility.kueue.x-k8s.io
- patch: |-
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: kueue-manager-config
      namespace: kueue-system
    data:
      controller_manager_config.yaml: |
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        health:
          healthProbeBindAddress: :8081
        metrics:
          bindAddress: :8443
        webhook:
          port: 9443
        leaderElection:
          leaderElect: false
        integrations:
          frameworks:
          - batch/job
        featureGates:
          VisibilityOnDemand: false
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: kueue-controller-manager
      namespace: kueue-system
    spec:
      template:
        spec:
          containers:
          - name: manager
            imagePullPolicy: IfNotPresent
            resources:
              requests:
                cpu: 50m
                memory: 128Mi
              limits:
                cpu: "1"
                memory: 512Mi$webhooks
EOF
  kc kustomize --load-restrictor=LoadRestrictionsNone "$work" > "$work/kueue.yaml.tmp"
  mv "$work/kueue.yaml.tmp" "$work/kueue.yaml"
  echo "$work/kueue.yaml"
}

queues() {
  cat <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: sweep-default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: sweep
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: [cpu, memory, pods]
    flavors:
    - name: sweep-default
      resources:
      - name: cpu
        nominalQuota: "1000"
      - name: memory
        nominalQuota: 1000Gi
      - name: pods
        nominalQuota: $KUEUE_PODS
EOF
  local name value
  for name in sweep-agent:100 sweep-verifier:1000 sweep-urgent:10000; do
    value=${name#*:}; name=${name%:*}
    printf -- '---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: %s\nvalue: %s\ndescription: sweep-operator e2e (hack/kueue.sh)\n' "$name" "$value"
  done
}

up() {
  build
  bash "$root/hack/images.sh" kueue
  local ref sock; ref=$(cat "$root/.cache/images/kueue.ref")
  # On the local cluster, its containerd gets the image unless it has it; another cluster pulls
  # it from REGISTRY (hack/images.sh pushes it there).
  sock=$cluster/node/run/containerd/containerd.sock
  if [ -S "$sock" ] && ! "$root/bin/k8s/ctr" --address "$sock" -n k8s.io images ls -q 2>/dev/null | grep -qxF "$ref"; then
    bash "$root/hack/images.sh" import "$root/.cache/images/kueue.tar"
  fi
  local yaml; yaml=$(manifests)
  say "installing $yaml"
  kc apply --server-side --force-conflicts -f "$yaml" >/dev/null
  kc -n kueue-system rollout status deployment/kueue-controller-manager --timeout=180s >&2
  # The manager makes its webhook certificate and injects its CA into the webhook
  # configurations after it starts: the queues go in once the webhooks accept them.
  local i
  for i in $(seq 90); do
    queues | kc apply --server-side -f - >/dev/null 2>"$work/queues.err" && break
    sleep 2
  done
  [ "$i" -lt 90 ] || { cat "$work/queues.err" >&2; exit 1; }
  say "ready: ClusterQueue sweep ($KUEUE_PODS pods at a time)"
}

localqueue() {
  printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: sweep\n  namespace: %s\nspec:\n  clusterQueue: sweep\n' "$1" \
    | kc apply --server-side -f - >/dev/null
}

down() {
  local yaml=$work/kueue.yaml
  [ -f "$yaml" ] || yaml=$(manifests)
  queues | kc delete --ignore-not-found -f - >/dev/null 2>&1 || true
  # The webhooks first, so that nothing waits on a manager that is going away.
  kc delete --ignore-not-found mutatingwebhookconfiguration kueue-mutating-webhook-configuration >/dev/null
  kc delete --ignore-not-found validatingwebhookconfiguration kueue-validating-webhook-configuration >/dev/null
  kc delete --ignore-not-found --wait=true -f "$yaml" >/dev/null
  say "uninstalled"
}

case "${1:-}" in
  --path) echo "$bin" ;;
  "") build; echo "$bin" ;;
  manifests) manifests ;;
  up) up ;;
  queue) [ -n "${2:-}" ] || { echo "usage: hack/kueue.sh queue NAMESPACE" >&2; exit 2; }; localqueue "$2" ;;
  down) down ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
