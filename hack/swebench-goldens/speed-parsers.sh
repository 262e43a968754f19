#!/usr/bin/env bash
# Times every SWE-bench parser (tag v5.0.1) against logparse's reading of the same logs, in
# process, and prints a table with the ratios:
#   hack/swebench-goldens/speed-parsers.sh SWEBENCH_GIT [ROW...]
# The logs are the goldens' logs of each parser concatenated and repeated to 1 MiB
# (BenchmarkGoldenLogs; a parser that reads the instance has a row per version, "<parser>@<v>").
# Python: the official function on the log (speed_parsers.py), best of RUNS (default 3) CPU
# seconds; a run longer than TIMEOUT seconds (default 300) is stopped and reported as such. Go:
# BenchmarkGoldenLogs under Official5, best of RUNS CPU times. CPU time (user + system) is the
# figure to read on a shared machine.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 SWEBENCH_GIT [ROW...]" >&2
	exit 2
fi
src=$1
shift
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checkout.sh
. "$here/checkout.sh"
swebench_checkouts "$src" "$tmp" v5.0.1
mkdir "$tmp/logs"
(cd "$root" && SWEEP_BENCH_LOG_DIR=$tmp/logs go test -count=1 -run '^TestBenchLogs$' ./internal/swebench/logparse >/dev/null)

"$python" "$here/speed_parsers.py" --checkout "$tmp/v5.0.1" --logs "$tmp/logs" --runs "$runs" \
	--timeout "${TIMEOUT:-300}" "$@" >"$tmp/python.txt"
rows=$(IFS=,; echo "$*")
(cd "$root" && SWEEP_BENCH_ROWS=$rows go test -count="$runs" -run '^$' -bench '^BenchmarkGoldenLogs$' -benchtime 5x \
	./internal/swebench/logparse) |
	awk '/^BenchmarkGoldenLogs\// {
		row = $1; sub(/^BenchmarkGoldenLogs\//, "", row); sub(/-[0-9]+$/, "", row)
		for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ns/op") c = $i / 1e9
		if (!(row in best) || c < best[row]) best[row] = c
	} END {for (r in best) printf "%s %.5f\n", r, best[r]}' | sort >"$tmp/go.txt"

# The table: one row per parser, slowest ratio first.
awk 'NR == FNR {go[$1] = $2; next}
	{
		if ($2 == "raised") {printf "%-34s %12s %10.2f %8s\n", $1, "raises", go[$1] * 1000, "-"; next}
		if ($2 == "timeout") {printf "%-34s %12s %10.2f %8s\n", $1, ">" $3 * 1000, go[$1] * 1000, ">" int($3 / go[$1]) "×"; next}
		printf "%-34s %12.2f %10.2f %7.1f×\n", $1, $3 * 1000, go[$1] * 1000, $3 / go[$1]
	}' "$tmp/go.txt" "$tmp/python.txt" >"$tmp/table.txt"
printf '%-34s %12s %10s %8s\n' "parser (golden logs, 1 MiB)" "python ms" "go ms" "× cpu"
sort -k4 -g "$tmp/table.txt"
