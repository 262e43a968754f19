package testresults

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pySpace is Python's \s in a str pattern as an RE2 class.
const pySpace = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// djangoSplitPatterns are SWE-bench's patterns for djangoSplitResults, in the same order, with
// Python's \s written out.
var djangoSplitPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `Testing against Django installed in ((?s:.*?)) silenced\)\.\nok$`),
	regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `Internal Server Error: /(.*)/\nok$`),
	regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `System check identified no issues \(0 silenced\)\nok$`),
}

// TestDjangoSplitMatchesEqualTheWholeLogSearch compares djangoSplitMatches with SWE-bench's own
// way of finding the split results, FindAllStringSubmatch of `(?m)^<pattern>` over the whole
// log, on logs drawn from the pieces those patterns are made of.
func TestDjangoSplitMatchesEqualTheWholeLogSearch(t *testing.T) {
	pieces := []string{"\n", "\n", " ", "\u00a0", "\t", "...", " ... ", "ok", "\nok", "okay", "test_a (m.T)", "x",
		"Testing against Django installed in", " '/usr/lib' (0", " silenced).", " silenced).\nok", "\u2028",
		"Internal Server Error: /", "/", "a/b", "System check identified no issues (0 silenced)\nok",
		"System check identified no issues (0 silenced)",
		// Whole matches, so that many logs hold one or several.
		"t1 (m.T) ... Testing against Django installed in '/d' with up to 2 processes\nSystem check (0 silenced).\nok",
		"t2 ...\nTesting against Django installed in x (0 silenced).\nok\n", "t3 ... Internal Server Error: /p/q/\nok",
		"t4\u00a0...\nInternal Server Error: /a/\nok\n", "t5 ... System check identified no issues (0 silenced)\nok\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for k, split := range djangoSplitResults {
		whole := djangoSplitPatterns[k]
		matched := 0
		for i := range 20000 {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			log := b.String()
			var want []string
			for _, m := range whole.FindAllStringSubmatch(log, -1) {
				want = append(want, m[1])
			}
			if want != nil {
				matched++
			}
			if diff := cmp.Diff(want, djangoSplitMatches(log, split.literal, split.rest, split.ending)); diff != "" {
				t.Fatalf("%s, log %d %q (-whole log +ours):\n%s", split.literal, i, log, diff)
			}
		}
		t.Logf("%s: %d of 20000 logs hold a match", split.literal, matched)
		if matched < 100 {
			t.Errorf("%s: only %d logs hold a match: draw pieces that make more", split.literal, matched)
		}
	}
}
