package logparse

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenLogs are the logs of every golden case (both folders).
func goldenLogs(t *testing.T) []string {
	var out []string
	for _, dir := range []string{"official", "official-instance"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no golden in testdata/%s: %v", dir, err)
		}
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var g struct{ Cases []struct{ Log string } }
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, c := range g.Cases {
				out = append(out, c.Log)
			}
		}
	}
	return out
}

// TestLiteralResEqualTheWholeLogSearch compares each literalRe with its pattern's
// FindAllStringSubmatchIndex over whole logs: every golden log, and 30,000 random logs per
// pattern made of matching lines (some with a piece changed), the patterns' pieces, newlines and
// Python whitespace.
func TestLiteralResEqualTheWholeLogSearch(t *testing.T) {
	type check struct {
		l *literalRe
		// lines match the pattern; the random logs are made of them, cut and changed.
		lines []string
	}
	karma := []string{"Chrome 120.0.0 (Linux x86_64) suite title FAILED\n", "Chrome Headless 1.2 (Linux x86_64) a FAILED\n",
		"Chrome\n1.2\t(Mac) t FAILED\r\n", "HeadlessChrome 0.0.0 (Linux 0.0.0) s t FAILED\n", "2KPhantomJS 2.1.1 (Linux 0.0.0) x FAILED\n",
		"2KPhantomJS 2.1.1 (Linux x86_64) y FAILED\n", "Chrome Headless 1 (Linux\nx86_64)\nz FAILED\n"}
	checks := map[string]check{"chart_js": {chartJSFailure, karma}, "mocha fullTitle": {mochaFullTitle, []string{
		"\"fullTitle\": \"a b\",\n", "\"fullTitle\":\n\"x\",\n", "\"fullTitle\":\u00a0\"\",\n", "\"fullTitle\": \"q\", \"r\",\r\n", "\"fullTitle\": \"\",,\n"}}, "next suites": {nextSuites, []string{
		"Running: a)\n\n\n  suite\n", "Running:b)x)\n\n\n\n\nsuite\n", "Running:)\n\n\n\t\u00a0s\n"}}}
	for i, l := range bpmnFailures {
		checks["bpmn_js "+string(rune('0'+i))] = check{l, karma}
	}
	for i, l := range openlayersLiteralFailures {
		checks["openlayers "+string(rune('0'+i))] = check{l, append([]string{"case a: mismatch\n", "case\nb:\nmismatch", "xcase c: mismatch", "case d: mismatch", "case e:\tmismatch",
			"Chrome 1.2 (Linux x)y) t FAILED\n", "Chrome Headless 1.2 (Linux x86_64) t\nFAILED\n", "Chrome Headless 1 (Linux a)) t\u00a0FAILED\n",
			"Chrome 1 (Linux ))\nFAILED\n"}, karma...)}
	}
	pieces := append([]string{"\n", "\n", "\n\n\n", "\r", "\r\n", "Chrome", "Chrome ", "(Linux ", " FAILED", "FAILED\n", "case ",
		": mismatch", "Running:", ")\n\n\n", "  "}, readerPieces...)
	golden := goldenLogs(t)
	for name, c := range checks {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			logs := append([]string(nil), golden...)
			for range 30000 {
				var b strings.Builder
				for range rng.IntN(8) {
					line := c.lines[rng.IntN(len(c.lines))]
					switch rng.IntN(4) {
					case 0: // a piece changed
						at := rng.IntN(len(line) + 1)
						line = line[:at] + pieces[rng.IntN(len(pieces))] + line[min(len(line), at+rng.IntN(4)):]
					case 1: // cut
						line = line[:rng.IntN(len(line)+1)]
					}
					b.WriteString(line)
					if rng.IntN(2) == 0 {
						b.WriteString(pieces[rng.IntN(len(pieces))])
					}
				}
				logs = append(logs, b.String())
			}
			found := 0
			for _, log := range logs {
				want := c.l.re.FindAllStringSubmatchIndex(log, -1)
				if diff := cmp.Diff(want, c.l.findAllIndex(log)); diff != "" {
					t.Fatalf("%q (-pattern +literalRe):\n%s", log, diff)
				}
				found += len(want)
			}
			t.Logf("%d logs, %d matches", len(logs), found)
			if found < 5000 {
				t.Errorf("only %d matches: draw logs that hold more", found)
			}
		})
	}
}

// TestNewLiteralReRefusesPatternsItCannotRun: a pattern without a leading literal, with matches
// of unbounded lines or with a non-multiline $ is refused when the program starts.
func TestNewLiteralReRefusesPatternsItCannotRun(t *testing.T) {
	for _, pattern := range []string{`(?m)^\s+x`, `x(?s:.)*y`, `x\s+y`, `x.*$`, `(?i)x`} {
		t.Run(pattern, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("newLiteralRe(%q) did not panic", pattern)
				}
			}()
			newLiteralRe(regexp.MustCompile(pattern))
		})
	}
}

// TestScannersEqualThePatterns compares each hand-written scanner with its pattern's
// FindAllStringSubmatchIndex over every golden log and 30,000 random logs per pattern.
func TestScannersEqualThePatterns(t *testing.T) {
	checks := map[string]struct {
		pattern *regexp.Regexp
		find    func(string) [][]int
		pieces  []string
		// first: only the first match is compared (the scanner finds no more).
		first bool
	}{
		"next failure": {pyRe(`(?m)^\s{4}\d+\)\s(.*)`), func(s string) [][]int { return lineStartMatches(s, matchNextFailure) },
			[]string{"    1) a", "    12)\tb", "\n\n  3) c", "  \u00a0 4) x", "    \u0663) y", "    5)", "    6)x"}, false},
		"next pass": {pyRe(`(?m)^\s{4}✓\s(.*)\(`), func(s string) [][]int { return lineStartMatches(s, matchNextPass) },
			[]string{"    ✓ a (1ms)", "    ✓ b(", "\n\n  ✓ c (", "    ✓\n(x)", "    ✓ d", "   ✓ e ("}, false},
		"openlayers mocha": {regexp.MustCompile(`(?m)^[` + pyWhitespace + `]{2}\p{Nd}+\)((?s:.)*?)Error:`), openlayersMochaFailures,
			[]string{"  1) a\n  b\n AssertionError: x", "  2) c Error:", "\n 3) d", "  4)Error:", "  \u0663) e TypeError: f", "Error:"}, false},
		"eslint": {regexp.MustCompile(`([` + pyWhitespace + `]{2}\p{Nd}+\))((?s:.)*?)[` + pyWhitespace + `]+(?:(.*)Error)`), eslintFailures,
			[]string{"  1) a\n  b\n AssertionError: x", "  2) c Error", " x  3) d", "   4)Error Error", "  \u0663) e TypeError: f", " Error", "\u00a0 5) x\n\n Error"}, false},
		"lighthouse runs": {pyRe(`running\s\d+\stest\sfiles`), lighthouseRunMatches,
			[]string{"running 3 test files", "running\u00a0\u0663\ttest\nfiles", "running 12 test file", "runningrunning 1 test files", "running  2 test files"}, false},
		"lighthouse passing": {pyRe(`\d+\spassing`), func(s string) [][]int {
			if m := lighthousePassing(s); m != nil {
				return [][]int{m}
			}
			return nil
		}, []string{"3 passing", "12\u00a0passing", "\u0663\npassing", "x passing", "4  passing", "passing"}, true},
		"next assertions": {regexp.MustCompile(`AssertionError:[` + pyWhitespace + `]+#((?s:.)*?)\n\n`), nextAssertions,
			[]string{"AssertionError: # a\n\n", "AssertionError:\n\n#\n\n", "AssertionError:# x", "AssertionError: \u00a0#y\nz\n\n", "AssertionError: x #"}, false},
	}
	pieces := []string{"\n", "\n", " ", "  ", "    ", "\t", "\u00a0", "\r", "1", ")", "(", "✓", "Error:", "x", "é"}
	golden := goldenLogs(t)
	for name, c := range checks {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 24))
			logs := append([]string(nil), golden...)
			for range 30000 {
				var b strings.Builder
				for range rng.IntN(10) {
					if rng.IntN(2) == 0 {
						line := c.pieces[rng.IntN(len(c.pieces))]
						if rng.IntN(3) == 0 { // cut
							line = line[:rng.IntN(len(line)+1)]
						}
						b.WriteString(line)
					} else {
						b.WriteString(pieces[rng.IntN(len(pieces))])
					}
				}
				logs = append(logs, b.String())
			}
			found := 0
			for _, log := range logs {
				want := c.pattern.FindAllStringSubmatchIndex(log, -1)
				if c.first && len(want) > 1 {
					want = want[:1]
				}
				if diff := cmp.Diff(want, c.find(log)); diff != "" {
					t.Fatalf("%q (-pattern +scanner):\n%s", log, diff)
				}
				found += len(want)
			}
			t.Logf("%d logs, %d matches", len(logs), found)
			if found < 5000 {
				t.Errorf("only %d matches: draw logs that hold more", found)
			}
		})
	}
}
