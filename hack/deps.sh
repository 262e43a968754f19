#!/usr/bin/env bash
# Installs the Debian packages the tests run for real: git and patch for patch application,
# python3 with pytest for the graders' test suites, cmake (and make, its generator's tool) for the
# bundle grader's CMake reconfigure. Idempotent.
set -euo pipefail
need=()
for pkg in git patch python3 python3-pytest cmake make; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "missing packages ${need[*]}: run as root or install them" >&2; exit 1; }
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
