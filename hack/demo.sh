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
catalogue=$root/.cache/demo/catalogue
t0=$(date +%s)
step() { echo "[demo $(( $(date +%s) - t0 ))s] $*"; }

# The sample campaign keeps its records on the manager's volume: no S3 server to build.
STACK_S3=0 hack/stack.sh

step "catalogue and SweepRun $run in namespace $ns"
"$kubectl" create namespace "$ns" --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n "$ns" apply -k "$catalogue" >/dev/null
name=sample-$run
"$kubectl" -n "$ns" delete sweeprun "$name" --ignore-not-found --wait=true >/dev/null
"$kubectl" -n "$ns" apply -f "config/samples/$run.yaml" >/dev/null
bin/sweep watch "$name" -n "$ns"
step "report"
bin/sweep info "$name" -n "$ns" --per-task
