#!/bin/sh
# Harbor entry point of the verifier. The grading itself is sweep-hook's built-in SWE-sweep
# grader reading bundle.json; the operator runs it directly, and this script runs it when
# sweep-hook is installed in the image (for example copied to /usr/local/bin).
mkdir -p /logs/verifier
if command -v sweep-hook >/dev/null 2>&1; then
  exec sweep-hook grade swesweep /tests --patch /logs/artifacts/model.patch --out /logs/verifier
fi
echo "test.sh: sweep-hook is not installed in this image; cannot grade" >&2
echo '{"reward": 0, "grader_failed": 1}' > /logs/verifier/reward.json
