#!/usr/bin/env bash
# Builds golangci-lint once from the Go module proxy into .cache/tools (one binary per version,
# so a version bump rebuilds and an old binary is never used) and runs it with .golangci.yml.
# Arguments go to `golangci-lint run`; with none it lints ./...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
GOLANGCI_LINT_VERSION=${GOLANGCI_LINT_VERSION:-v2.15.0}
bin=$root/.cache/tools/golangci-lint-$GOLANGCI_LINT_VERSION

if [ ! -x "$bin" ]; then
  echo "building golangci-lint $GOLANGCI_LINT_VERSION (once, into $bin)" >&2
  mkdir -p "$root/.cache/tools"
  tmp=$(mktemp -d "$root/.cache/tools/build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # A GOBIN of its own so a half-built binary never takes the versioned name.
  GOBIN=$tmp go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
  mv "$tmp/golangci-lint" "$bin"
  rm -rf "$tmp"
  trap - EXIT
fi

cd "$root"
if [ $# -eq 0 ]; then set -- ./...; fi
exec "$bin" run "$@"
