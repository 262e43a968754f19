#!/usr/bin/env bash
# Builds helm once from the Go module proxy into .cache/tools (one binary per version, so a
# version bump rebuilds and an old binary is never used) and prints its path.
#   hack/helm.sh                 build when missing, print the path
#   hack/helm.sh --path          print the path only, built or not (the chart's tests read it)
#   hack/helm.sh ARGS...         build when missing, run helm ARGS (e.g. lint charts/sweep-operator)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
HELM_VERSION=${HELM_VERSION:-v3.22.0}
bin=$root/.cache/tools/helm-$HELM_VERSION
if [ "${1:-}" = --path ]; then
  echo "$bin"
  exit 0
fi

if [ ! -x "$bin" ]; then
  echo "building helm $HELM_VERSION (once, into $bin)" >&2
  mkdir -p "$root/.cache/tools"
  tmp=$(mktemp -d "$root/.cache/tools/build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # A GOBIN of its own so a half-built binary never takes the versioned name; CGO off gives a
  # static binary, as helm's own releases are.
  CGO_ENABLED=0 GOBIN=$tmp go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  mv "$tmp/helm" "$bin"
  rm -rf "$tmp"
  trap - EXIT
fi

if [ $# -eq 0 ]; then
  echo "$bin"
  exit 0
fi
exec "$bin" "$@"
