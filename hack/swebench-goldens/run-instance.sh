#!/usr/bin/env bash
# Writes the goldens of SWE-bench's parsers that read the instance besides the log (and of
# parse_plotly_js), one OUT_DIR/<parser_name>.json each; see instance_goldens.py.
#   hack/swebench-goldens/run-instance.sh SWEBENCH_GIT OUT_DIR [SEED]
# The checked-in ones are internal/swebench/logparse/testdata/official-instance (seed 1).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 SWEBENCH_GIT OUT_DIR [SEED]" >&2
	exit 2
fi
src=$1 out=$2 seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checkout.sh
. "$here/checkout.sh"
swebench_checkouts "$src" "$tmp" v4.1.0 v5.0.1

"$python" "$here/instance_goldens.py" --checkout "v4.1.0=$tmp/v4.1.0" --checkout "v5.0.1=$tmp/v5.0.1" --out "$out" --seed "$seed"
