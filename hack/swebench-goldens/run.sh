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

if git --git-dir="$src" rev-parse --git-dir >/dev/null 2>&1; then
	gitdir=$src
elif git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	gitdir=$(git -C "$src" rev-parse --absolute-git-dir)
else
	git clone --quiet --bare --filter=blob:none "$src" "$tmp/swebench.git"
	gitdir=$tmp/swebench.git
fi

checkouts=()
for tag in v4.1.0 v5.0.1; do
	if ! git --git-dir="$gitdir" rev-parse --verify --quiet "refs/tags/$tag" >/dev/null; then
		echo "$src has no tag $tag: give a clone of SWE-bench/SWE-bench with its tags" >&2
		exit 1
	fi
	mkdir -p "$tmp/$tag"
	git --git-dir="$gitdir" archive "$tag" swebench | tar -x -C "$tmp/$tag"
	checkouts+=(--checkout "$tag=$tmp/$tag")
done

mkdir -p "$out"
"$python" "$here/parsers.py" "${checkouts[@]}" --out "$out" --seed "$seed"
