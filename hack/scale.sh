#!/usr/bin/env bash
# make scale: builds what test/scale runs (kube-apiserver, etcd, kube-controller-manager and
# kube-scheduler into bin/k8s as hack/envtest.sh does, kwok into .cache/tools) and runs it.
#   hack/scale.sh [N] [test/scale flags...]    N trials a phase (default 1000)
# It prints the figures and writes scale.json in its run directory (.cache/scale/<time>); it
# fails only when a trial was lost or run twice, or the run could not be made (docs/scale.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000}
shift || true
# shellcheck source=hack/envtest.sh
source "$root/hack/envtest.sh"
build_etcd
build_kube kube-apiserver kube-controller-manager kube-scheduler
kwok=$(bash "$root/hack/kwok.sh")
cd "$root"
exec go run ./test/scale -n "$n" -kwok "$kwok" "$@"
