#!/usr/bin/env bash
# The end-to-end suite: brings the local cluster up with the operator and the sample catalogue
# (hack/stack.sh), runs test/e2e against it, and takes the cluster down again, whatever the
# outcome, unless KEEP_CLUSTER=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/local/go/bin:$PATH
export KUBECONFIG=$root/.cache/cluster/kubeconfig
t0=$(date +%s)
was_up=0
hack/cluster.sh status >/dev/null 2>&1 && was_up=1
cleanup() {
  if [ "${KEEP_CLUSTER:-0}" != 1 ] && [ $was_up = 0 ]; then hack/cluster.sh down || true; fi
}
trap cleanup EXIT
hack/stack.sh
# The Helm spec installs the chart with the pinned helm (built once from the Go module proxy).
hack/helm.sh >/dev/null
# The Kueue spec installs Kueue (built once from the Go module proxy) and uninstalls it after.
hack/kueue.sh >/dev/null
# The Flux spec installs Flux's source-controller and kustomize-controller (built once from the
# Go module proxy) and uninstalls them after; it serves its own Git repository (test/e2e/gitserver).
hack/flux.sh >/dev/null
echo "[e2e] stack ready after $(( $(date +%s) - t0 ))s"
# The specs run on E2E_PROCS Ginkgo processes (default 3): most of a spec's time is spent
# waiting on Pods, so three keep the node's two cores busy. Specs that change what every other
# spec runs on (the manager, Kueue's webhooks, the node's cordon) are marked Serial and run alone at the end.
# ginkgo is the CLI of the Ginkgo version go.mod pins.
go run github.com/onsi/ginkgo/v2/ginkgo --tags e2e -p --procs "${E2E_PROCS:-3}" --timeout 40m -v ./test/e2e/
echo "[e2e] finished after $(( $(date +%s) - t0 ))s"
