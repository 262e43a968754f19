package testresults

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestSympyFailureHeaderEqualsThePattern compares sympyFailureHeader with SWE-bench's
// `(_*) (.*)\.py:(.*) (_*)` (the first match of a line, which is its only one) on random lines.
func TestSympyFailureHeaderEqualsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`(_*) (.*)\.py:(.*) (_*)`)
	pieces := []string{"_", "___", " ", "  ", ".py:", ".py", ":", "py:", "sympy/core/tests/test_x", "test_y", ".", "é", "\t"}
	rng := rand.New(rand.NewPCG(7, 8))
	found := 0
	for range 100000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		line := b.String()
		want, wantOK := "", false
		if m := pattern.FindStringSubmatch(line); m != nil {
			want, wantOK = m[2]+".py:"+m[3], true
			found++
		}
		if got, ok := sympyFailureHeader(line); got != want || ok != wantOK {
			t.Fatalf("%q: pattern %q %v, ours %q %v", line, want, wantOK, got, ok)
		}
	}
	if found < 2000 {
		t.Errorf("only %d lines match: draw lines that match more often", found)
	}
}
