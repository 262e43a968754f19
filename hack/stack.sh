#!/usr/bin/env bash
# Everything a campaign on the local cluster needs, idempotent and cached: the cluster of
# hack/cluster.sh, the binaries, the sweep-hook and manager images, the sample task catalogue
# (.cache/demo/catalogue, written by `sweep tasks bundle`) and its images, the S3 server of
# hack/seaweedfs.sh (weed built once) with its bucket, the operator with its store volume.
#   STACK_S3=0   without the S3 server (the operator's default store, the volume, needs none)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/local/go/bin:$PATH
export KUBECONFIG=$root/.cache/cluster/kubeconfig
t0=$(date +%s)
step() { echo "[stack $(( $(date +%s) - t0 ))s] $*"; }

bash hack/deps.sh
step "local cluster"
hack/cluster.sh status >/dev/null 2>&1 || hack/cluster.sh up
step "binaries and images"
make -s build >/dev/null
hack/images.sh hook
hack/images.sh manager
[ "${STACK_S3:-1}" = 0 ] || hack/images.sh seaweedfs
catalogue=$root/.cache/demo/catalogue
bin/sweep tasks bundle tasks/*/ --registry localhost/sweep -o "$catalogue" >/dev/null
hack/images.sh catalogue tasks/
hack/images.sh import
if [ "${STACK_S3:-1}" != 0 ]; then
  step "S3 server"
  # before the operator: the manager reads its S3 credentials (envFrom) when it starts
  hack/seaweedfs.sh deploy
fi
step "operator"
hack/deploy.sh
