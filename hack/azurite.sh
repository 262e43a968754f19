#!/usr/bin/env bash
# Installs Azurite (Microsoft's Azure Storage emulator, MIT) once from the npm registry into
# .cache/tools (one folder per version) and prints the path of its blob server, which the
# artifact store's azblob:// tests run.
#   hack/azurite.sh            install when missing, print the path
#   hack/azurite.sh --path     print the path only, installed or not (the tests read it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
AZURITE_VERSION=${AZURITE_VERSION:-3.37.0}
dir=$root/.cache/tools/azurite-$AZURITE_VERSION
bin=$dir/node_modules/.bin/azurite-blob
if [ "${1:-}" = --path ]; then
  echo "$bin"
  exit 0
fi
if [ ! -x "$bin" ]; then
  # A fresh machine may have no npm: install Debian's, as hack/deps.sh installs what the tests run.
  command -v npm >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm; }
  echo "installing azurite $AZURITE_VERSION (once, into $dir)" >&2
  tmp=$(mktemp -d "$root/.cache/tools/azurite.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # A folder of its own until the install is whole, so a broken one never takes the name.
  npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION" >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
fi
echo "$bin"
