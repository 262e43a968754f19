#!/usr/bin/env bash
# Writes the parser-parity goldens: the parse maps of SWE-bench's own log parsers (tags v4.1.0
# and v5.0.1) on a corpus generated from SEED, one OUT_DIR/<parser_name>.json per parser.
#   hack/swebench-goldens/run.sh SWEBENCH_GIT OUT_DIR [SEED]
# SWEBENCH_GIT is a git directory (bare or not) or a URL of SWE-bench/SWE-bench. The tags are
# extracted into a temporary directory outside the repository; nothing of them is kept.
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

. "$here/checkout.sh"
swebench_checkouts "$src" "$tmp" v4.1.0 v5.0.1
checkouts=(--checkout "v4.1.0=$tmp/v4.1.0" --checkout "v5.0.1=$tmp/v5.0.1")

mkdir -p "$out"
"$python" "$here/parsers.py" "${checkouts[@]}" --out "$out" --seed "$seed"
