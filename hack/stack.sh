#!/usr/bin/env bash
# Everything a campaign on the local cluster needs, idempotent and cached: the cluster of
# hack/cluster.sh, the binaries, the sweep-hook and manager images, the sample task catalogue
# (.cache/demo/catalogue, written by `sweep tasks bundle`) and its images, the operator.
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
catalogue=$root/.cache/demo/catalogue
bin/sweep tasks bundle tasks/*/ --registry localhost/sweep -o "$catalogue" >/dev/null
hack/images.sh catalogue tasks/
hack/images.sh import
step "operator"
hack/deploy.sh
