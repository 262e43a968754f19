#!/usr/bin/env bash
# make breakdown: where a trial's time goes on the local cluster (test/breakdown; docs/scale.md,
# "On the local cluster: one trial's time"). Brings up what a campaign needs (hack/stack.sh,
# without the S3 server), applies the sample catalogue to the namespace sweep-breakdown and
# runs test/breakdown there with the flags given. Like `make demo` it leaves the cluster up.
#   hack/breakdown.sh [test/breakdown flags...]     e.g. -repeat 5, or -load (3 x 10, parallelism 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/local/go/bin:$PATH
export KUBECONFIG=$root/.cache/cluster/kubeconfig
kubectl=$root/bin/k8s/kubectl
ns=sweep-breakdown

STACK_S3=0 hack/stack.sh
"$kubectl" create namespace "$ns" --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n "$ns" apply -k .cache/demo/catalogue >/dev/null
go build -o bin/breakdown ./test/breakdown
exec bin/breakdown -n "$ns" "$@"
