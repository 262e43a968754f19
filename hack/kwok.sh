#!/usr/bin/env bash
# Builds kwok (simulated nodes and Pod lifecycles for test/scale) once from the Go module proxy
# into .cache/tools, one binary per version as hack/helm.sh does for helm, and prints its path.
#   hack/kwok.sh            build when missing, print the path
#   hack/kwok.sh --path     print the path only, built or not
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
bin=$root/.cache/tools/kwok-$KWOK_VERSION
if [ "${1:-}" = --path ]; then
  echo "$bin"
  exit 0
fi

if [ ! -x "$bin" ]; then
  echo "building kwok $KWOK_VERSION (once, into $bin)" >&2
  mkdir -p "$root/.cache/tools"
  tmp=$(mktemp -d "$root/.cache/tools/build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # A GOBIN of its own so a half-built binary never takes the versioned name.
  CGO_ENABLED=0 GOBIN=$tmp go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  mv "$tmp/kwok" "$bin"
  rm -rf "$tmp"
  trap - EXIT
fi
echo "$bin"
