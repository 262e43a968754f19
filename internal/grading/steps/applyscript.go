package steps

import "strings"

// ApplyMarkers are the lines FallbackApplyScript prints, for a log reader to tell how the
// patch went.
type ApplyMarkers struct {
	// Applied is followed by " (<method>)".
	Applied        string
	AlreadyApplied string
	Failed         string
}

// FallbackApplyScript returns a bash script that applies the patch at patchPath to the
// repository in the current directory by the first of four methods that works: git apply -v,
// git apply -v --3way, git apply -v --reject, patch --batch --forward --fuzz=5 -p1, resetting
// the tree between attempts; if all fail and the patch applies in reverse, it was already
// applied. It prints "<Applied> (<method>)" or AlreadyApplied and exits 0, or Failed and exits
// 1. The patch is copied first, so it may live inside the tree.
func FallbackApplyScript(patchPath string, m ApplyMarkers) string {
	return `#!/bin/bash
# Applies a model patch the way SWE-bench 5 does. Run it in the repository.
set -uo pipefail
patch_copy="$(mktemp)"
trap 'rm -f "$patch_copy"' EXIT
cp -- ` + ShellQuote(patchPath) + ` "$patch_copy" || { echo "` + m.Failed + `: cannot read "` + ShellQuote(patchPath) + `; exit 1; }
# A failed attempt can leave half-applied hunks, .rej files or 3-way conflicts: start clean.
reset_tree() { git reset --hard --quiet && git clean -fdq; }
for method in "git apply --verbose" "git apply --verbose --3way" "git apply --verbose --reject" "patch --batch --forward --fuzz=5 -p1 -i"; do
  if $method "$patch_copy"; then
    echo "` + m.Applied + ` ($method)"
    exit 0
  fi
  reset_tree
done
if git apply --check --reverse "$patch_copy" 2>/dev/null; then
  echo "` + m.AlreadyApplied + `"
  exit 0
fi
echo "` + m.Failed + `"
exit 1
`
}

// ShellQuote quotes s for bash unless it is made only of characters that need no quoting.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
