#!/usr/bin/env bash
# Builds the control-plane binaries envtest needs (kube-apiserver, etcd) from the Go module proxy
# into bin/k8s, and prints that directory (the value for KUBEBUILDER_ASSETS).
# Built once; later runs only check that the binaries are there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
out=$root/bin/k8s
work=$root/.cache/k8s-build
mkdir -p "$out" "$work"

# k8s.io/kubernetes is not published as a library: its go.mod replaces each staging module with a
# local path, so a module that builds its commands must pin those modules to the matching v0.X.Y.
kube_module() {
  local dir=$work/kubernetes
  mkdir -p "$dir"
  [ -f "$dir/go.sum" ] && return
  cd "$dir"
  printf 'module sweep.local/kubebuild\n\ngo 1.26.0\n' > go.mod
  local gomod staging=v0.${KUBE_VERSION#v1.}
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  for m in $(awk '/=> \.\/staging/ {print $1}' "$gomod"); do
    go mod edit -replace="$m=$m@$staging"
  done
  go mod edit -require="k8s.io/kubernetes@$KUBE_VERSION"
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go mod tidy
}

# Without these the binaries report v0.0.0-master, which clients and version checks reject.
kube_ldflags() {
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local flags="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags="$flags -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  echo "$flags"
}

build_kube() { # build_kube kube-apiserver ...
  kube_module
  local c
  for c in "$@"; do
    [ -x "$out/$c" ] && continue
    echo "building $c $KUBE_VERSION" >&2
    (cd "$work/kubernetes" && go build -trimpath -ldflags "$(kube_ldflags)" -o "$out/$c" "k8s.io/kubernetes/cmd/$c")
  done
}

build_etcd() {
  [ -x "$out/etcd" ] && return
  local dir=$work/etcd
  mkdir -p "$dir" && cd "$dir"
  if [ ! -f go.sum ]; then
    printf 'module sweep.local/etcdbuild\n\ngo 1.26.0\n' > go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go mod tidy
  fi
  echo "building etcd $ETCD_VERSION" >&2
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
}

# Sourced by the cluster scripts for build_kube and build_etcd; run, it builds what envtest needs.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  build_etcd
  build_kube kube-apiserver
  echo "$out"
fi
