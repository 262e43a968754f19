#!/usr/bin/env bash
# Times SWE-bench's own log parsers (tag v5.0.1) against logparse on the same large logs, in
# process and end to end, and prints the ratios:
#   hack/swebench-goldens/speed.sh SWEBENCH_GIT [PARSER...]
# PARSER defaults to parse_log_pytest and parse_log_pytest_v2; the logs are logparse's benchmark
# logs (bench_test.go, 100 MiB each). In process: the parse call alone (Python: the official
# function; Go: ParseAs under Official5, from BenchmarkLogFile). End to end: a python3 process
# that loads the parser, reads the log, parses it and prints the map as JSON, against
# `sweep swebench parse --grading 5` (process start, read, parse, JSON). Each figure is the best
# of RUNS (default 3), as wall time and as CPU time (user + system); on a shared machine the CPU
# ratio is the steadier one.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 SWEBENCH_GIT [PARSER...]" >&2
	exit 2
fi
src=$1
shift
parsers=("$@")
[ ${#parsers[@]} -gt 0 ] || parsers=(parse_log_pytest parse_log_pytest_v2)
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/checkout.sh"
swebench_checkouts "$src" "$tmp" v5.0.1
(cd "$root" && go build -o "$tmp/sweep" ./cmd/sweep)

# The Python side: MODE=inproc prints "wall cpu" of the parse call; MODE=e2e is the whole
# end-to-end program (the map as JSON on stdout).
cat >"$tmp/official_parse.py" <<'EOF'
import json, sys, time
here, checkout, mode, parser, log_path = sys.argv[1:6]
sys.path.insert(0, here)
import parsers
fn = parsers.load_parsers(checkout)[parser][1]
with open(log_path) as f:
    log = f.read()
if mode == "e2e":
    print(json.dumps(fn(log, None)))
else:
    c0, t0 = time.process_time(), time.perf_counter()
    fn(log, None)
    print(f"{time.perf_counter() - t0:.3f} {time.process_time() - c0:.3f}")
EOF
python_parse() { "$python" "$tmp/official_parse.py" "$here" "$tmp/v5.0.1" "$@"; }

# timed CMD... prints "wall cpu" of one run of CMD, its output discarded.
timed() {
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$tmp/time"
}

# best reads "wall cpu" lines and prints the smallest of each.
best() { sort -n -k1 | awk 'NR == 1 {w = $1} {if (c == "" || $2 < c) c = $2} END {print w, c}'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }

printf '%-22s %-11s %10s %10s %8s %10s %10s %8s\n' parser measure "python s" "go s" "× wall" "python cpu" "go cpu" "× cpu"
for p in "${parsers[@]}"; do
	log=$tmp/$p.log
	(cd "$root" && SWEEP_BENCH_LOG_OUT=$log SWEEP_BENCH_PARSER=$p go test -count=1 -run '^TestBenchLogs$' ./internal/swebench/logparse >/dev/null)

	py_in=$(for _ in $(seq "$runs"); do python_parse inproc "$p" "$log"; done | best)
	go_in=$(cd "$root" && SWEEP_BENCH_LOG=$log SWEEP_BENCH_PARSER=$p go test -count=1 -run '^$' \
		-bench 'LogFile/official-5$' -benchtime 1x -count "$runs" ./internal/swebench/logparse |
		awk '/^BenchmarkLogFile/ {for (i = 1; i <= NF; i++) {if ($(i+1) == "ns/op") w = $i / 1e9; if ($(i+1) == "cpu-ns/op") c = $i / 1e9}; printf "%.3f %.3f\n", w, c}' | best)
	py_e2e=$(for _ in $(seq "$runs"); do timed "$python" "$tmp/official_parse.py" "$here" "$tmp/v5.0.1" e2e "$p" "$log"; done | best)
	go_e2e=$(for _ in $(seq "$runs"); do timed "$tmp/sweep" swebench parse --parser "$p" --grading 5 "$log"; done | best)

	for m in "in process:$py_in:$go_in" "end to end:$py_e2e:$go_e2e"; do
		IFS=: read -r name py go <<<"$m"
		read -r pw pc <<<"$py"
		read -r gw gc <<<"$go"
		printf '%-22s %-11s %10s %10s %8s %10s %10s %8s\n' "$p" "$name" "$pw" "$gw" "$(ratio "$pw" "$gw")" "$pc" "$gc" "$(ratio "$pc" "$gc")"
	done
done
