package steps

import (
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"plain":  {in: "tests/a_b.py", want: "tests/a_b.py"},
		"space":  {in: "a b", want: "'a b'"},
		"quote":  {in: "it's", want: `'it'\''s'`},
		"empty":  {in: "", want: "''"},
		"dollar": {in: "$HOME", want: "'$HOME'"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ShellQuote(tc.in); got != tc.want {
				t.Errorf("ShellQuote(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The script is run for real by internal/swebench's live tests; here: it says what it was told
// to say, and quotes the path.
func TestFallbackApplyScript(t *testing.T) {
	script := FallbackApplyScript("/tmp/my patch", ApplyMarkers{Applied: "OK", AlreadyApplied: "ALREADY", Failed: "FAIL"})
	for _, want := range []string{
		`cp -- '/tmp/my patch' "$patch_copy" || { echo "FAIL: cannot read "'/tmp/my patch'; exit 1; }`,
		`echo "OK ($method)"`,
		`echo "ALREADY"`,
		"echo \"FAIL\"\nexit 1\n",
		`"git apply --verbose" "git apply --verbose --3way" "git apply --verbose --reject" "patch --batch --forward --fuzz=5 -p1 -i"`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
}
