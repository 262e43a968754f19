#!/usr/bin/env bash
# Proves every sample task under tasks/ with the real grader: sweep-hook grade swesweep for a
# task with tests/bundle.json, the task's own tests/test.sh for one graded by its own grader
# (tests/swesweep_eval.json, as SWE-sweep's tasks are).
#
#   tasks/check.sh [TASK...]        default: every directory of tasks/ with a task.toml
#
# For each task the repository is set up as its agent image has it (tasks/README.md: copy
# repo/, git init, commit everything, tag baseline) in a temporary directory, tests/ is copied
# next to it as the bundle, and these cases are graded:
#   oracle    --oracle: every bug resolved with its own fix, reward 1
#   nop       an empty patch: reward 0, nothing resolved, no regression; applied (agent_patch_applied 1),
#             as SWE-sweep counts an empty patch
#   stale-patch  a patch that does not apply: graded unpatched (agent_patch_applied 0), reward 0
#   solve     solution/solve.sh run in the repository, collected as the task's collect hook
#             does (git add -A; git diff --cached --binary baseline): reward 1
#   <fixture> each fixtures/*.patch, graded against fixtures/expected.json
#   one-bug   every bug's own fix alone as the agent's patch, graded on that bug only
#             (--bugs; for a test.sh task, swesweep_eval.json rewritten to list that bug only, as
#             SWE-sweep's `sweep eval --bugs` does): that bug resolved, no regression
#   validation  only for a task with fixtures/validation.json (flakykit, made to fail validation):
#             the oracle and an empty patch graded once per verifier Pod name it lists, each
#             bug's resolved counts and the tests whose outcome differed compared with it, and
#             the verdict `sweep tasks check --repeat N` draws from them printed
# fixtures/validation.json also gives the environment of every case of its task (env) and
# overrides of the default expectations of the nop and stale-patch cases (expect).
# A test.sh task has no oracle mode (its oracle trial is solve.sh, the solve case), and gets one
# more case, no-patch: the patch file is missing, which its grader reports as a grader failure
# with all nine reward keys and grader_error.txt.
# One line per case; the exit status is non-zero when any case does not match.
#
# The grader runs the tests as CHECK_TEST_UID (default 65549), not the verifier's 65533: it
# kills every process of that uid when a step ends, host-wide here, so check.sh must not share
# it with another grader running on the same machine (a test package, a second check.sh).
set -uo pipefail
test_uid=${CHECK_TEST_UID:-65549}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

missing=()
command -v git >/dev/null || missing+=("git (apt-get install -y git)")
command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || missing+=("go")
py=
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null && "$c" -c 'import pytest' >/dev/null 2>&1; then py=$(command -v "$c"); break; fi
done
[ -n "$py" ] || missing+=("python3 with pytest (apt-get install -y python3 python3-pytest)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "check.sh: missing: ${missing[*]}" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sweep-tasks-check.XXXXXX")
# The grader runs the builds and the tests as an unprivileged identity: it must reach the trees.
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
# The bundles run "python3": make it the interpreter that has pytest.
mkdir -p "$tmp/bin"
ln -s "$py" "$tmp/bin/python3"
export PATH="$tmp/bin:$PATH:/usr/local/go/bin"
export GIT_AUTHOR_NAME=sweep GIT_AUTHOR_EMAIL=sweep@localhost GIT_COMMITTER_NAME=sweep GIT_COMMITTER_EMAIL=sweep@localhost
export GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

hook=$tmp/sweep-hook
if ! (cd "$root" && CGO_ENABLED=0 go build -o "$hook" ./cmd/sweep-hook) 2>"$tmp/build.log"; then
  echo "check.sh: cannot build sweep-hook:" >&2
  cat "$tmp/build.log" >&2
  exit 1
fi

failures=0

# setup_repo DIR TASKDIR: the repository as the agent image holds it.
setup_repo() {
  mkdir -p "$1"
  cp -a "$2/environment/repo/." "$1/"
  git -C "$1" init -q -b main
  git -C "$1" add -A
  git -C "$1" commit -q --allow-empty -m baseline
  git -C "$1" tag baseline
}

# verdict JSON EXPECT...: compares reward.json with KEY=VALUE (or KEY>VALUE) expectations and
# prints the reward fields, or the mismatches after "MISMATCH".
verdict() {
  "$py" - "$@" <<'PY'
import json, sys
path, expects = sys.argv[1], sys.argv[2:]
try:
    got = json.load(open(path))
except Exception as e:
    print(f"MISMATCH unreadable reward.json: {e}")
    sys.exit(0)
bad = []
for e in expects:
    op = ">" if ">" in e else "="
    key, want = e.split(op, 1)
    have = got.get(key)
    ok = have is not None and (have > float(want) if op == ">" else abs(have - float(want)) < 1e-9)
    if not ok:
        bad.append(f"{key}={have} want {op}{want}")
keys = ["reward", "n_resolved", "n_subtasks", "n_partial", "n_regressions", "visible_ok", "agent_patch_applied", "grader_failed"]
summary = " ".join(f"{k}={got.get(k, '?'):g}" if isinstance(got.get(k), (int, float)) else f"{k}=?" for k in keys)
print(("MISMATCH " + "; ".join(bad) + " | " if bad else "") + summary)
PY
}

# grade TASK CASE WORK BUNDLE [ARGS...] -- EXPECT...: runs the grader and prints the case line.
grade() {
  local task=$1 case=$2 work=$3 bundle=$4; shift 4
  local args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  local out=$tmp/$task/out-$case start end rc line
  start=$(date +%s.%N)
  if [ -f "$bundle/bundle.json" ]; then
    "$hook" grade swesweep "$bundle" --workdir "$work" --out "$out" --test-uid "$test_uid" "${args[@]}" >"$out.log" 2>&1
    rc=$?
  else
    run_test_sh "$bundle" "$work" "$out" "${args[@]}" >"$out.log" 2>&1
    rc=$?
    # Its grader exits 1 when it fails, which the no-patch case expects.
    if [ $rc -eq 1 ] && [ -f "$out/grader_error.txt" ]; then rc=0; fi
  fi
  end=$(date +%s.%N)
  line=$(verdict "$out/reward.json" "$@")
  if [ $rc -ne 0 ]; then line="MISMATCH grader exit status $rc | $line"; fi
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')
  case $line in
    MISMATCH*)
      printf '%-12s %-26s FAIL  %s (%ss)\n' "$task" "$case" "${line#MISMATCH }" "$secs"
      echo "---- grader output ($case), last 25 lines:"
      tail -n 25 "$out.log"
      [ -f "$out/eval.json" ] && { echo "---- eval.json error/regressions:"; grep -E '"error"|"regressions"' "$out/eval.json" | head -5; }
      echo "----"
      failures=$((failures + 1))
      ;;
    *) printf '%-12s %-26s ok    %s (%ss)\n' "$task" "$case" "$line" "$secs" ;;
  esac
}

# run_test_sh BUNDLE WORK OUT [--patch FILE] [--bugs ID]: runs the task's own tests/test.sh
# on the repository WORK as its verifier image does. A bug subset is a copy of BUNDLE whose
# swesweep_eval.json lists those subtasks only.
run_test_sh() {
  local bundle=$1 work=$2 out=$3 patch=/nonexistent bugs=; shift 3
  while [ $# -gt 0 ]; do
    case $1 in
      --patch) patch=$2; shift 2 ;;
      --bugs) bugs=$2; shift 2 ;;
      *) echo "run_test_sh: unsupported $1" >&2; return 2 ;;
    esac
  done
  if [ -n "$bugs" ]; then
    local subset=$out.tests
    rm -rf "$subset"; cp -a "$bundle" "$subset"
    "$py" - "$subset/swesweep_eval.json" "$bugs" <<'PY' || return 2
import json, sys
path, ids = sys.argv[1], sys.argv[2].split(",")
cfg = json.load(open(path))
cfg["subtasks"] = [s for s in cfg["subtasks"] if s["id"] in ids]
json.dump(cfg, open(path, "w"), indent=2)
PY
    bundle=$subset
  fi
  rm -rf "$out"
  GRADER_WORKDIR=$work GRADER_PATCH=$patch GRADER_OUT_DIR=$out bash "$bundle/test.sh"
}

# all_reward_keys JSON: MISMATCH unless reward.json has exactly the nine keys.
all_reward_keys() {
  "$py" - "$1" <<'PY'
import json, sys
want = {"reward", "n_subtasks", "n_resolved", "n_partial", "visible_ok", "n_regressions",
        "agent_patch_applied", "agent_build_ok", "grader_failed"}
try:
    got = set(json.load(open(sys.argv[1])))
except Exception as e:
    got = {f"unreadable: {e}"}
if got != want:
    print(f"MISMATCH reward.json keys {sorted(got)}")
PY
}

# check_script_task DIR: the cases of a task graded by its own tests/test.sh.
check_script_task() {
  local dir=$1 task
  task=$(basename "$dir")
  local t=$tmp/$task work=$tmp/$task/work bundle=$tmp/$task/tests
  mkdir -p "$t"
  setup_repo "$work" "$dir"
  cp -a "$dir/tests" "$bundle"
  local bugs n
  bugs=$("$py" -c 'import json,sys; print(" ".join(s["id"] for s in json.load(open(sys.argv[1]))["subtasks"]))' "$bundle/swesweep_eval.json")
  n=$(echo "$bugs" | wc -w)

  : >"$t/empty.patch"
  grade "$task" nop "$work" "$bundle" --patch "$t/empty.patch" -- \
    reward=0 n_resolved=0 n_partial=0 n_regressions=0 visible_ok=1 agent_patch_applied=1 grader_failed=0
  printf 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a line that is not in the file\n+its replacement\n' >"$t/stale.patch"
  grade "$task" stale-patch "$work" "$bundle" --patch "$t/stale.patch" -- \
    reward=0 n_resolved=0 n_regressions=0 visible_ok=1 agent_patch_applied=0 grader_failed=0
  grade "$task" no-patch "$work" "$bundle" --patch "$t/no-such.patch" -- reward=0 grader_failed=1
  local missing
  missing=$(all_reward_keys "$t/out-no-patch/reward.json")
  [ -s "$t/out-no-patch/grader_error.txt" ] || missing="$missing MISMATCH no grader_error.txt"
  if [ -n "$missing" ]; then
    printf '%-12s %-26s FAIL  %s\n' "$task" no-patch-files "$missing"
    failures=$((failures + 1))
  fi

  local sw=$t/solve-work
  setup_repo "$sw" "$dir"
  if sh "$dir/solution/solve.sh" "$sw" >"$t/solve.log" 2>&1 \
     && (cd "$sw" && git add -A && git diff --cached --binary baseline) >"$t/solve.patch"; then
    grade "$task" solve "$work" "$bundle" --patch "$t/solve.patch" -- \
      reward=1 "n_resolved=$n" "n_subtasks=$n" n_regressions=0 visible_ok=1 agent_patch_applied=1 grader_failed=0
    missing=$(all_reward_keys "$t/out-solve/reward.json")
    for f in eval.json eval_output.json; do [ -s "$t/out-solve/$f" ] || missing="$missing MISMATCH no $f"; done
    if [ -n "$missing" ]; then
      printf '%-12s %-26s FAIL  %s\n' "$task" solve-files "$missing"
      failures=$((failures + 1))
    fi
  else
    printf '%-12s %-26s FAIL  solution/solve.sh failed: %s\n' "$task" solve "$(tail -n 3 "$t/solve.log" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi

  check_fixtures "$task" "$dir" "$work" "$bundle"

  local id
  for id in $bugs; do
    grade "$task" "fix:$id" "$work" "$bundle" --patch "$dir/solution/$id.patch" --bugs "$id" -- \
      reward=1 n_resolved=1 n_subtasks=1 n_regressions=0 visible_ok=1 grader_failed=0
  done
}

# expect DIR CASE KEY=VALUE...: the expectations of a built-in case, with those of
# fixtures/validation.json's expect[CASE] in place of the defaults.
expect() {
  "$py" - "$1/fixtures/validation.json" "${@:2}" <<'PY'
import json, sys
path, case, defaults = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    over = json.load(open(path)).get("expect", {}).get(case, {})
except FileNotFoundError:
    over = {}
out = [d for d in defaults if d.split("=", 1)[0] not in over] + [f"{k}={v!r}" for k, v in over.items()]
print(" ".join(out))
PY
}

# task_env DIR: the environment fixtures/validation.json gives every case of the task, as
# NAME=VALUE lines.
task_env() {
  [ -f "$1/fixtures/validation.json" ] || return 0
  "$py" -c 'import json,sys; [print(f"{k}={v}") for k, v in json.load(open(sys.argv[1])).get("env", {}).items()]' "$1/fixtures/validation.json"
}

# check_validation TASK DIR WORK BUNDLE: the oracle and an empty patch graded once per pod of
# fixtures/validation.json, as `sweep tasks check --repeat N` runs them, and each bug's figures
# compared with its expectations.
check_validation() {
  local task=$1 dir=$2 work=$3 bundle=$4 spec=$2/fixtures/validation.json t=$tmp/$1/validation pod i=0
  mkdir -p "$t"
  : >"$t/empty.patch"
  for pod in $("$py" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["validation"]["pods"]))' "$spec"); do
    i=$((i + 1))
    for agent in oracle nop; do
      local args=(--oracle)
      [ $agent = nop ] && args=(--patch "$t/empty.patch")
      rm -rf "$t/$agent-$i"
      if ! FLAKYKIT_POD_NAME=$pod "$hook" grade swesweep "$bundle" --workdir "$work" --out "$t/$agent-$i" --test-uid "$test_uid" "${args[@]}" >"$t/$agent-$i.log" 2>&1; then
        printf '%-12s %-26s FAIL  grader failed on %s run %d (pod %s): %s\n' "$task" validation $agent $i "$pod" "$(tail -n 3 "$t/$agent-$i.log" | tr '\n' ' ')"
        failures=$((failures + 1))
        return
      fi
    done
  done
  local lines
  lines=$("$py" - "$spec" "$t" "$i" <<'PY'
import json, sys
spec, d, n = json.load(open(sys.argv[1]))["validation"], sys.argv[2], int(sys.argv[3])
def runs(agent):
    return [{b["subtask_id"]: b for b in json.load(open(f"{d}/{agent}-{i}/eval.json"))["subtasks"]} for i in range(1, n + 1)]
oracle, nop = runs("oracle"), runs("nop")
for bug, want in spec["bugs"].items():
    got = {"oracle": sum(r[bug]["resolved"] for r in oracle), "nop": sum(r[bug]["resolved"] for r in nop)}
    outcomes = {}
    for agent_runs in (oracle, nop):
        seen = {}
        for r in agent_runs:
            b = r[bug]
            for key, outcome in (("f2p_passed", "passed"), ("p2p_passed", "passed"), ("f2p_failed", "failed"), ("p2p_failed", "failed")):
                for test in b[key]:
                    seen.setdefault(test, set()).add(outcome)
        for test, s in seen.items():
            if len(s) > 1:
                outcomes[test] = True
    got["flaky"] = sorted(outcomes)
    bad = [f"{k} {got[k]} want {want[k]}" for k in ("oracle", "nop", "flaky") if got[k] != want[k]]
    figures = f"oracle {got['oracle']}/{n} nop {got['nop']}/{n} flaky {','.join(got['flaky']) or '-'}"
    print(("MISMATCH " + "; ".join(bad) + " | " if bad else "") + f"validation:{bug} {figures} => {want['verdict']}")
PY
)
  local line
  while IFS= read -r line; do
    case $line in
      MISMATCH*) printf '%-12s %-26s FAIL  %s\n' "$task" validation "${line#MISMATCH }"; failures=$((failures + 1)) ;;
      *) printf '%-12s %-26s ok    %s\n' "$task" "${line%% *}" "${line#* }" ;;
    esac
  done <<<"$lines"
}

# check_fixtures TASK DIR WORK BUNDLE: each fixtures/*.patch against fixtures/expected.json.
check_fixtures() {
  local task=$1 dir=$2 work=$3 bundle=$4 f name expect
  for f in "$dir"/fixtures/*.patch; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    expect=$("$py" -c 'import json,sys; e=json.load(open(sys.argv[1])).get(sys.argv[2]); print(" ".join(f"{k}={v}" for k, v in e.items()) if e else "MISSING")' \
      "$dir/fixtures/expected.json" "$name" 2>/dev/null || echo MISSING)
    if [ "$expect" = MISSING ]; then
      printf '%-12s %-26s FAIL  no expectation for %s in fixtures/expected.json\n' "$task" "${name%.patch}" "$name"
      failures=$((failures + 1))
      continue
    fi
    # shellcheck disable=SC2086
    grade "$task" "${name%.patch}" "$work" "$bundle" --patch "$f" -- $expect
  done
}

check_task() {
  local dir=$1 task
  if [ ! -f "$dir/tests/bundle.json" ]; then
    check_script_task "$dir"
    return
  fi
  task=$(basename "$dir")
  local t=$tmp/$task work=$tmp/$task/work bundle=$tmp/$task/tests
  mkdir -p "$t"
  setup_repo "$work" "$dir"
  cp -a "$dir/tests" "$bundle"
  local kv envs=()
  while IFS= read -r kv; do [ -n "$kv" ] && envs+=("$kv"); done < <(task_env "$dir")
  [ ${#envs[@]} -eq 0 ] || export "${envs[@]}"
  local bugs n
  bugs=$("$py" -c 'import json,sys; print(" ".join(b["id"] for b in json.load(open(sys.argv[1]))["bugs"]))' "$bundle/bundle.json")
  n=$(echo "$bugs" | wc -w)

  grade "$task" oracle "$work" "$bundle" --oracle -- reward=1 "n_resolved=$n" "n_subtasks=$n" grader_failed=0

  : >"$t/empty.patch"
  # shellcheck disable=SC2046
  grade "$task" nop "$work" "$bundle" --patch "$t/empty.patch" -- $(expect "$dir" nop \
    reward=0 n_resolved=0 n_partial=0 n_regressions=0 visible_ok=1 agent_patch_applied=1 grader_failed=0)

  printf 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a line that is not in the file\n+its replacement\n' >"$t/stale.patch"
  # shellcheck disable=SC2046
  grade "$task" stale-patch "$work" "$bundle" --patch "$t/stale.patch" -- $(expect "$dir" stale-patch \
    reward=0 n_resolved=0 n_regressions=0 visible_ok=1 agent_patch_applied=0 grader_failed=0)

  local sw=$t/solve-work
  setup_repo "$sw" "$dir"
  if sh "$dir/solution/solve.sh" "$sw" >"$t/solve.log" 2>&1 \
     && (cd "$sw" && git add -A && git diff --cached --binary baseline) >"$t/solve.patch"; then
    grade "$task" solve "$sw" "$bundle" --patch "$t/solve.patch" -- \
      reward=1 "n_resolved=$n" n_regressions=0 visible_ok=1 agent_patch_applied=1 grader_failed=0
  else
    printf '%-12s %-26s FAIL  solution/solve.sh failed: %s\n' "$task" solve "$(tail -n 3 "$t/solve.log" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi

  check_fixtures "$task" "$dir" "$work" "$bundle"

  local id
  for id in $bugs; do
    grade "$task" "fix:$id" "$work" "$bundle" --patch "$bundle/bugs/$id/fix.patch" --bugs "$id" -- \
      reward=1 n_resolved=1 n_subtasks=1 n_regressions=0 visible_ok=1 grader_failed=0
  done

  [ -f "$dir/fixtures/validation.json" ] && check_validation "$task" "$dir" "$work" "$bundle"
  for kv in "${envs[@]}"; do unset "${kv%%=*}"; done
}

tasks=("$@")
if [ ${#tasks[@]} -eq 0 ]; then
  for d in "$here"/*/; do [ -f "$d/task.toml" ] && tasks+=("$(basename "$d")"); done
fi
for name in "${tasks[@]}"; do
  if [ ! -f "$here/$name/task.toml" ]; then
    echo "check.sh: no task $name under $here" >&2
    failures=$((failures + 1))
    continue
  fi
  check_task "$here/${name%/}"
done
if [ $failures -ne 0 ]; then
  echo "check.sh: $failures case(s) FAILED"
  exit 1
fi
echo "check.sh: all cases passed (${#tasks[@]} task(s))"
