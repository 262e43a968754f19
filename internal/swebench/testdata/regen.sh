#!/bin/bash
# Regenerates logs/ by running the real runners on projects/. Each log keeps stdout and stderr
# merged, as the SWE-bench eval script does. Needs: pytest (apt-get install -y python3-pytest),
# python3, go, cargo.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
logs="$here/logs"
mkdir -p "$logs"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cp -r "$here/projects/." "$work/"
export PYTHONDONTWRITEBYTECODE=1

(cd "$work/pytest" && pytest -p no:cacheprovider -rA test_sample.py) >"$logs/pytest_rA.log" 2>&1
(cd "$work/pytest" && pytest -p no:cacheprovider -rA -v test_sample.py) >"$logs/pytest_rA_verbose.log" 2>&1
(cd "$work/pytest" && pytest -p no:cacheprovider -rA -vv --color=yes -o console_output_style=classic --tb=no test_sample.py) >"$logs/pytest_v2_color.log" 2>&1
(cd "$work/pytest" && pytest -p no:cacheprovider -q --junitxml="$work/junit.xml" test_sample.py; cat "$work/junit.xml") >"$logs/pytest_junit.log" 2>&1
(cd "$work/unittest" && python3 -m unittest -v test_django_style) >"$logs/unittest_django_style.log" 2>&1
(cd "$work/gotest" && GOFLAGS=-mod=mod go test -v -count=1 ./...) >"$logs/gotest.log" 2>&1
(cd "$work/cargo" && RUST_BACKTRACE=0 cargo test --offline --quiet --color never -- --test-threads=1 --format=pretty) >"$logs/cargo.log" 2>&1

# Durations and temp paths differ per run; pin them so the logs diff cleanly.
sed -i -E 's/in [0-9]+\.[0-9]+s/in 0.01s/g; s/\(([0-9]+\.[0-9]+)s\)/(0.00s)/g; s/\t[0-9]+\.[0-9]+s$/\t0.01s/; s#'"$work"'#/work#g; s/time="[0-9.]+"/time="0.01"/g; s/timestamp="[^"]*"/timestamp="2026-01-01T00:00:00"/g; s/hostname="[^"]*"/hostname="host"/g; s/finished in [0-9.]+s/finished in 0.00s/g' "$logs"/*.log
sed -i -E "s/^thread '([^']*)' \([0-9]+\)/thread '\\1'/" "$logs"/*.log
echo "logs regenerated in $logs"
