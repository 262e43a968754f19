#!/usr/bin/env bash
# The README's main command: bring up the local cluster (if it is not running), build and import
# the images, deploy the operator, apply the sample task catalogue and a sample SweepRun, follow
# it, and print the per-task report and the score. A second run reuses everything built.
#   DEMO_RUN   the sample to run from config/samples (default oracle)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/local/go/bin:$PATH
export KUBECONFIG=$root/.cache/cluster/kubeconfig
kubectl=$root/bin/k8s/kubectl
ns=sweep-demo
run=${DEMO_RUN:-oracle}
t0=$(date +%s)
step() { echo "[demo $(( $(date +%s) - t0 ))s] $*"; }

bash hack/deps.sh
step "local cluster"
hack/cluster.sh status >/dev/null 2>&1 || hack/cluster.sh up
step "binaries and images"
make -s build >/dev/null
hack/images.sh hook
hack/images.sh manager
catalogue=$root/.cache/demo/catalogue
bin/sweep tasks bundle tasks/*/ --registry localhost/sweep -o "$catalogue" >/dev/null
bin/sweep tasks images tasks/*/ --registry localhost/sweep -o json > "$root/.cache/demo/images.json"
for dir in tasks/*/; do
  [ -f "$dir/task.toml" ] || continue
  refs=$(python3 - "$root/.cache/demo/images.json" "$(realpath "$dir")" <<'PY'
import json, os, sys
images, task_dir = json.load(open(sys.argv[1])), sys.argv[2]
mine = {i["role"]: i["image"] for i in images if os.path.realpath(os.path.dirname(i["build"]["context"])) == task_dir}
print(mine["agent"], mine["verifier"])
PY
)
  read -r agent verifier <<<"$refs"
  TASK_AGENT_REF=$agent TASK_VERIFIER_REF=$verifier hack/images.sh task-images "$dir"
done
hack/images.sh import
step "operator"
hack/deploy.sh
step "catalogue and SweepRun $run in namespace $ns"
"$kubectl" create namespace "$ns" --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n "$ns" apply -k "$catalogue" >/dev/null
name=sample-$run
"$kubectl" -n "$ns" delete sweeprun "$name" --ignore-not-found --wait=true >/dev/null
"$kubectl" -n "$ns" apply -f "config/samples/$run.yaml" >/dev/null
bin/sweep watch "$name" -n "$ns"
step "report"
bin/sweep info "$name" -n "$ns" --per-task
