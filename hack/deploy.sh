#!/usr/bin/env bash
# Installs the operator into the current cluster from config/default, with the manager and
# sweep-hook images hack/images.sh built (their content-derived references in .cache/images/).
#   KUBECONFIG   the cluster (default: the local cluster of hack/cluster.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export KUBECONFIG=${KUBECONFIG:-$root/.cache/cluster/kubeconfig}
kubectl=${KUBECTL:-$root/bin/k8s/kubectl}
command -v "$kubectl" >/dev/null || kubectl=kubectl
manager_ref=$(cat "$root/.cache/images/manager.ref" 2>/dev/null) || { echo "no manager image: run hack/images.sh manager" >&2; exit 1; }
hook_ref=$(cat "$root/.cache/images/sweep-hook.ref" 2>/dev/null) || { echo "no sweep-hook image: run hack/images.sh hook" >&2; exit 1; }

overlay=$root/.cache/deploy
mkdir -p "$overlay"
cat > "$overlay/kustomization.yaml" <<YAML
# Written by hack/deploy.sh: config/default with the images built here.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../config/default
images:
- name: sweep-operator/manager
  newName: ${manager_ref%:*}
  newTag: ${manager_ref##*:}
patches:
- target: {kind: Deployment, name: sweep-operator-manager}
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/env/0/value
      value: ${hook_ref}
YAML
"$kubectl" apply --server-side -k "$overlay" >/dev/null
"$kubectl" -n sweep-system rollout status deployment/sweep-operator-manager --timeout=120s
