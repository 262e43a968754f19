#!/bin/bash
# Harbor entry point of the verifier: this task is graded by its own grader, as SWE-sweep's
# tasks are (swesweep_grade.py next to this file; tasks/README.md says what it does). It writes
# reward.json, eval.json, eval_output.json and, on failure, grader_error.txt under the output
# directory. GRADER_TESTS_DIR, GRADER_PATCH, GRADER_OUT_DIR and GRADER_WORKDIR override the paths of the verifier image
# (tasks/check.sh runs it outside one).
set -u
tests=${GRADER_TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
out=${GRADER_OUT_DIR:-/logs/verifier}
mkdir -p "$out"
py=
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import pytest' >/dev/null 2>&1; then py=$(command -v "$c"); break; fi
done
if [ -z "$py" ]; then
  echo "test.sh: no python3 with pytest in this image; cannot grade" >&2
  echo "no python3 with pytest in the verifier image" > "$out/grader_error.txt"
  printf '{"reward": 0, "n_subtasks": 0, "n_resolved": 0, "n_partial": 0, "visible_ok": 0, "n_regressions": 0, "agent_patch_applied": 0, "agent_build_ok": 0, "grader_failed": 1}\n' > "$out/reward.json"
  exit 1
fi
args=(--tests "$tests" --patch "${GRADER_PATCH:-/logs/artifacts/model.patch}" --out "$out")
[ -n "${GRADER_WORKDIR:-}" ] && args+=(--workdir "$GRADER_WORKDIR")
exec "$py" -B "$tests/swesweep_grade.py" "${args[@]}"
