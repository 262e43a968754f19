#!/usr/bin/env bash
# Installs the operator into the current cluster from config/default, with the manager and
# sweep-hook images hack/images.sh built (their content-derived references in .cache/images/).
#   KUBECONFIG      the cluster (default: the local cluster of hack/cluster.sh)
#   STORE_HOSTPATH  a host directory for the store's claim (default on the local cluster, which has
#                   no storage provisioner: .cache/cluster/store); empty on other clusters, whose
#                   default StorageClass provisions it
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cluster=$(realpath -m "${CLUSTER_DIR:-$root/.cache/cluster}")
export KUBECONFIG=${KUBECONFIG:-$cluster/kubeconfig}
local_store=
[ "$(realpath -m "$KUBECONFIG")" = "$cluster/kubeconfig" ] && local_store=$cluster/store
store_dir=${STORE_HOSTPATH-$local_store}
kubectl=${KUBECTL:-$root/bin/k8s/kubectl}
command -v "$kubectl" >/dev/null || kubectl=kubectl
manager_ref=$(cat "$root/.cache/images/manager.ref" 2>/dev/null) || { echo "no manager image: run hack/images.sh manager" >&2; exit 1; }
hook_ref=$(cat "$root/.cache/images/sweep-hook.ref" 2>/dev/null) || { echo "no sweep-hook image: run hack/images.sh hook" >&2; exit 1; }

# The manager's store (config/manager/store.yaml) on a hostPath PersistentVolume bound to its
# claim. The kubelet's private mount namespace replaces only /run, /var/lib and /var/log, so this
# directory is the same one on the host: the e2e suite reads the records there (file://) after
# their SweepRun is gone. hostPath takes no fsGroup: the directory belongs to the manager's user.
if [ -n "$store_dir" ]; then
  install -d -o 65532 -g 65532 -m 0750 "$store_dir"
  pv=sweep-operator-store-local
  # A claim deleted and made again finds the volume Released: made anew, the data stays.
  [ "$("$kubectl" get pv $pv -o jsonpath='{.status.phase}' 2>/dev/null)" = Released ] && "$kubectl" delete pv $pv >/dev/null
  "$kubectl" get pv $pv >/dev/null 2>&1 || "$kubectl" create -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata:
  name: $pv
  labels:
    app.kubernetes.io/name: sweep-operator
spec:
  capacity:
    storage: 10Gi
  accessModes: ["ReadWriteOnce"]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  claimRef:
    namespace: sweep-system
    name: sweep-operator-store
  hostPath:
    path: $store_dir
    type: Directory
YAML
fi

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
