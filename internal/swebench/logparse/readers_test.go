package logparse

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// readerCheck is a hand-written reader and the official pattern it stands for: the pattern's
// groups wordGroup and nameGroup (0: none) must equal what the reader returns, on the same line.
type readerCheck struct {
	name                 string
	pattern              *regexp.Regexp
	wordGroup, nameGroup int
	read                 func(string) (word, name string, ok bool)
	// stripped: the parser gives the reader only lines stripped of Python's whitespace.
	stripped bool
	// starts are what the random lines of this reader may start with.
	starts []string
	// official, when pattern is nil, is the official reading of a line.
	official func(line string) readResult
}

var readerChecks = []readerCheck{
	{"jq", pyRe(`^\s*(PASS|FAIL):\s(.+)$`), 1, 2, jqLine, true, []string{"PASS:", "FAIL:", "PASS"}, nil},
	{"micropython", pyRe(`^(pass|FAIL|skip)\s+(.+)$`), 1, 2, micropythonLine, true, []string{"pass", "FAIL", "skip"}, nil},
	{"googletest", pyRe(`^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$`), 1, 2, googletestLine, true, []string{"[", "[ OK ] ", "[  FAILED  ] ", "x [OK] "}, nil},
	{"ant", pyRe(`^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$`), 1, 2, antLine, true, []string{"[junit] [PASS] ", "[junit]  [ERR]", "[junit] [FAIL]\t"}, nil},
	{"minitest", pyRe(`^(.+)\. .*=.*(\.|F|E).*$`), 2, 1, minitestLine, true, []string{"T#t", "a. ", "x = ", "T#test_a. = 0.01 s = .", "a. b = E", "c. d=F"}, nil},
	{"cucumber", pyRe(`^(.*) \.+(\.|F)`), 2, 1, cucumberLine, true, []string{"f", " ..", " .F"}, nil},
	{"rspec", pyRe(`^(.+) - (passed|failed)`), 2, 1, rspecLine, true, []string{" - passed", "x - failed", "y"}, nil},
	{"jest_json", pyRe(`^\[(PASSED|FAILED)\]\s(.+)$`), 1, 2, jestJSONLine, true, []string{"[PASSED]", "[FAILED] ", "[PASSED]\u00a0"}, nil},
	{"tap", pyRe(`^(ok|not ok) (\d+) (.+)$`), 1, 3, tapLine, true, []string{"ok ", "not ok ", "ok 1", "ok \u0663 "}, nil},
	{"vitest", pyRe(`^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$`), 1, 2, vitestLine, true, []string{"✓ ", "× ", "↓\u00a0", "✓"}, nil},
	{"redis", pyRe(`^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$`), 1, 2, redisLine, true, []string{"[ok]: ", "[err]: ", "[skip]:", "[ignore]: "}, nil},
	{"phpunit test", pyRe(`^\s*([✔✘↩])\s*(.*)$`), 1, 2, phpunitTestLine, false, []string{"✔", " ✘ ", "↩"}, nil},
	{"phpunit suite", pyRe(`^(\w.+) \(.+\)$`), 0, 1, func(s string) (string, string, bool) {
		name, ok := phpunitSuiteLine(s)
		return "", name, ok
	}, false, []string{"Suite", "é", "_", "1"}, nil},
	{"cargo", pyRe(`^test\s+(\S+)\s+\.\.\.\s+(\w+)$`), 1, 2, cargoLine, true, []string{"test ", "test\u00a0x ... ", "test a ... ok", "test x\t...\u00a0FAILED"}, nil},
	{"maven test", pyRe(`^.*-Dtest=(\S+).*$`), 0, 1, func(s string) (string, string, bool) {
		name, ok := mavenTestName(s)
		return "", name, ok
	}, true, []string{"mvn -Dtest=", "-Dtest=a -Dtest=", "x-Dtest=-Dtest=y", "-Dtest= -Dtest=é"}, nil},
	{"maven result", pyRe(`^.*BUILD (SUCCESS|FAILURE)$`), 1, 0, func(s string) (string, string, bool) {
		word, ok := mavenResult(s)
		return word, s, ok
	}, true, []string{"BUILD SUCCESS", "[INFO] BUILD FAILURE", "BUILD", "x BUILD "}, nil},
	{"carbon", nil, 0, 0, carbonLine, false, []string{"PASS ", "FAIL ", "PASS\t", "FAIL"}, firstOfPatterns(carbonPatterns)},
	{"ruby unit", nil, 0, 0, rubyUnitLine, true, []string{"test: ", "test:", "a:", "t: .", "test: x: E", "x", ": "}, officialRubyUnit},
	{"gradle result", pyRe(`^([^>].+)\s+(PASSED|FAILED)$`), 2, 1, gradleResultLine, true, []string{">", "a", "C > m", "é", "ab PASSED", "> x FAILED"}, nil},
	{"gradle test name", pyRe(`^([^>]\S*\s+>\s+\S+)$`), 0, 1, func(s string) (string, string, bool) {
		return "", s, gradleTestNameLine(s)
	}, true, []string{"C > ", "C\u00a0>\u00a0", "> ", "a", "é >\t", "Class > "}, nil},
	{"marked", pyRe(`^\d+\)\s(.*)`), 0, 1, func(s string) (string, string, bool) {
		name, ok := markedLine(s)
		return "", name, ok
	}, false, []string{"1) ", "12)", "\u0663)\u00a0", " 1) ", "1)"}, nil},
	{"lighthouse mocha", nil, 0, 0, lighthouseMochaLine, true, []string{"✔ ", "✔", "1) ", "12)\u00a0", "✔ x (12ms)", "2) y (3mms)"}, firstOfPatterns(lighthouseMochaPatterns)},
	{"calypso pass", nil, 0, 0, func(s string) (string, string, bool) {
		name, ok := calypsoLine(s, "✓")
		return "", name, ok
	}, false, []string{"  ✓ ", " ✓", "✓ ", "\u00a0✓\t", "  ✓ x (12ms)", "  ✓ (3ms)"}, officialCalypso("✓")},
	{"next failure", pyRe(`^.*?✗\s*(.*)`), 0, 1, func(s string) (string, string, bool) {
		_, title, ok := strings.Cut(s, "✗")
		return "", pyLstrip(title), ok
	}, false, []string{"✗", " ✗ ", "x ✗\u00a0", "✓"}, nil},
	{"plotly suite", nil, 0, 0, func(s string) (string, string, bool) {
		indent, name, _, ok := plotlyLine(s, '-')
		return indent, name, ok
	}, false, []string{"  - ", " -", "- ", "\u00a0-\t", "  -  :", " - x :"}, officialPlotly(pyRe(`^(\s+)-\s+(.*?)\s+:`), 1, 2)},
	{"plotly test", nil, 0, 0, func(s string) (string, string, bool) {
		_, name, after, ok := plotlyLine(s, '*')
		return name, pyLstrip(after), ok
	}, false, []string{"  * ", " *", "* ", "\u00a0*\t", "  *  :", " * x : ok"}, officialPlotly(pyRe(`^(\s+)\*\s+(.*?)\s+:\s*(.*)`), 2, 3)},
}

// firstOfPatterns is the reading of parsers that try patterns in order: the first that matches
// gives the word and the name (group 1).
func firstOfPatterns(patterns []wordPattern) func(string) readResult {
	return func(line string) readResult {
		for _, p := range patterns {
			if m := p.re.FindStringSubmatch(line); m != nil {
				return readResult{p.word, m[1], true}
			}
		}
		return readResult{}
	}
}

var rubyUnitPattern = pyRe(`^\s*(?:test: )?(.+):\s+(\.|[EFO](?:$|[^` + pyWord + `]))`)

// officialRubyUnit is `^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)`, with \b written out: a letter
// outcome followed by the end or a non-word character.
func officialRubyUnit(line string) readResult {
	m := rubyUnitPattern.FindStringSubmatch(line)
	if m == nil {
		return readResult{}
	}
	return readResult{m[2][:1], m[1], true}
}

// officialCalypso is parse_log_calypso's choice of pattern for a line holding mark.
func officialCalypso(mark string) func(string) readResult {
	timed, plain, timing := pyRe(`^\s+`+mark+`\s(.*)\(\d+ms\)$`), pyRe(`^\s+`+mark+`\s(.*)`), pyRe(`\(\d+ms\)`)
	return func(line string) readResult {
		re := plain
		if timing.MatchString(line) {
			re = timed
		}
		if m := re.FindStringSubmatch(line); m != nil {
			return readResult{"", m[1], true}
		}
		return readResult{}
	}
}

// officialPlotly reads groups word and name of a plotly pattern.
func officialPlotly(re *regexp.Regexp, word, name int) func(string) readResult {
	return func(line string) readResult {
		if m := re.FindStringSubmatch(line); m != nil {
			return readResult{m[word], m[name], true}
		}
		return readResult{}
	}
}

// wordPattern is an official pattern and the word its match stands for.
type wordPattern struct {
	word string
	re   *regexp.Regexp
}

// carbonPatterns are parse_log_carbon's patterns, tried in this order.
var carbonPatterns = []wordPattern{
	{"PASS", pyRe(`^PASS\s(.*)\s\([\d\.]+ms\)`)}, {"PASS", pyRe(`^PASS\s(.*)\s\([\d\.]+\ss\)`)},
	{"PASS", pyRe(`^PASS\s(.*)\s\([\d\.]+s\)`)}, {"PASS", pyRe(`^PASS\s(.*)`)},
	{"FAIL", pyRe(`^FAIL\s(.*)\s\([\d\.]+ms\)`)}, {"FAIL", pyRe(`^FAIL\s(.*)\s\([\d\.]+\ss\)`)},
	{"FAIL", pyRe(`^FAIL\s(.*)\s\([\d\.]+s\)`)}, {"FAIL", pyRe(`^FAIL\s(.*)`)},
}

// lighthouseMochaPatterns are parse_log_lighthouse_mocha's patterns (re.match), in order.
var lighthouseMochaPatterns = []wordPattern{
	{"✔", pyRe(`^✔\s(.*)\s\(\d+m+s\)`)}, {"✔", pyRe(`^✔\s(.*)`)},
	{")", pyRe(`^\d+\)\s(.*)\s\(\d+m+s\)`)}, {")", pyRe(`^\d+\)\s(.*)`)},
}

type readResult struct {
	Word, Name string
	OK         bool
}

func (c readerCheck) officialRead(line string) readResult {
	if c.pattern == nil {
		return c.official(line)
	}
	m := c.pattern.FindStringSubmatch(line)
	if m == nil {
		return readResult{}
	}
	r := readResult{Name: m[c.nameGroup], OK: true}
	if c.wordGroup > 0 {
		r.Word = m[c.wordGroup]
	}
	return r
}

// readerPieces are what random lines are made of: the patterns' words and punctuation, Python
// whitespace that RE2's \s lacks, Unicode digits and letters.
var readerPieces = []string{" ", " ", "  ", "\t", "\u00a0", "\u2003", "\x1c", "\v", "(", ")", "[", "]", ":", ".", "..", "=",
	"F", "E", "O", "ok", "ms", "s", " s", "m", "12", "3.5", "\u0663", "x", "é", "漢", "in", " in ", "file.tcl", "PASS", "FAIL",
	"OK", "FAILED", "ERR", " - ", "passed", "failed", "✓", "×", "↓", "✔", "✘", "↩", "[skipped]", " (12 ms)", " (3 s)", " (1.2s)",
	" (5ms)", "[junit]", "[PASS]", "# ", "test", ")", "(", "test: ", ">", " > ", "-", "*", " : ", "(12ms)", "(3mms)", "✕", "✗", "\r", " ..", " .F"}

// goldenLines are the lines of every golden log (both folders).
func goldenLines(t *testing.T) []string {
	var out []string
	for _, log := range goldenLogs(t) {
		out = append(out, lines(log)...)
	}
	return out
}

// TestReadersEqualTheOfficialPatterns compares each hand-written reader with the official
// pattern it replaces, on every line of the goldens and on 50,000 random lines per reader.
func TestReadersEqualTheOfficialPatterns(t *testing.T) {
	golden := goldenLines(t)
	rng := rand.New(rand.NewPCG(12, 34))
	for _, c := range readerChecks {
		t.Run(c.name, func(t *testing.T) {
			inputs := append([]string(nil), golden...)
			for range 50000 {
				var b strings.Builder
				b.WriteString(c.starts[rng.IntN(len(c.starts))])
				for range rng.IntN(10) {
					b.WriteString(readerPieces[rng.IntN(len(readerPieces))])
				}
				inputs = append(inputs, b.String())
			}
			matched := 0
			for _, line := range inputs {
				if c.stripped {
					line = pyStrip(line)
				}
				want := c.officialRead(line)
				word, name, ok := c.read(line)
				got := readResult{word, name, ok}
				if !ok {
					got = readResult{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("line %q (-official +reader):\n%s", line, diff)
				}
				if ok {
					matched++
				}
			}
			t.Logf("%d lines, %d read", len(inputs), matched)
			if matched < 1000 {
				t.Errorf("only %d lines are read: make the random lines match more often", matched)
			}
		})
	}
}

var whitespaceRuns = pyRe(`\s+`)

// removing is re.sub(pattern, "", s).
func removing(re *regexp.Regexp) func(string) string {
	return func(s string) string { return re.ReplaceAllLiteralString(s, "") }
}

// TestRewritesEqualTheOfficialSubstitutions compares the hand-written substitutions with the
// official re.sub calls they replace, on the same random texts.
func TestRewritesEqualTheOfficialSubstitutions(t *testing.T) {
	for _, c := range []struct {
		name              string
		official, rewrite func(string) string
		// stripped: the parser gives the rewrite only text stripped of Python's whitespace.
		stripped bool
		// pieces are drawn besides readerPieces.
		pieces []string
	}{
		{"redis file", removing(pyRe(`\s+in\s+\S+$`)), withoutRedisFile, true, nil},
		{"grommet time", removing(pyRe(`\s\([\d\.]+\s?(?:ms|s)\)$`)), withoutGrommetTime, true, nil},
		{"ansi escape", removing(regexp.MustCompile(`\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])`)), ansiEscape, false,
			[]string{"\x1b", "\x1b", "\x1b[", "\x1b[0m", "\x1b[31;1m", "\x1b[?25l", "\x1b[2K", "\x1b[ !", "[", "\\", "^", "_", "@", "~", "0", ";", "?", "/", "!", "\x7f", "a"}},
		{"collapse space", func(s string) string { return pyStrip(whitespaceRuns.ReplaceAllLiteralString(s, " ")) }, collapseSpace, false,
			[]string{"\n", "\n\n", "\r\n", "\xff", "\x1c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(56, 78))
			pieces := append(slices.Clone(readerPieces), c.pieces...)
			changed := 0
			for range 100000 {
				var b strings.Builder
				for range rng.IntN(8) {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
				s := b.String()
				if c.stripped {
					s = pyStrip(s)
				}
				want := c.official(s)
				if got := c.rewrite(s); got != want {
					t.Fatalf("%q: official %q, ours %q", s, want, got)
				}
				if want != s {
					changed++
				}
			}
			t.Logf("%d of 100000 texts changed", changed)
			if changed < 500 {
				t.Errorf("only %d texts changed: draw texts that match more often", changed)
			}
		})
	}
}

// TestJestFileResultsEqualTheOfficialSearch compares jestFileResults with the official
// re.findall of `(?m)^FAIL\s(.*)` and `(?m)^PASS\s(.*)` over whole logs.
func TestJestFileResultsEqualTheOfficialSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := append([]string{"\n", "\n", "FAIL", "PASS", "FAIL ", "PASS\n", "\r\n"}, readerPieces...)
	official := map[string]*regexp.Regexp{"FAIL": pyRe(`(?m)^FAIL\s(.*)`), "PASS": pyRe(`(?m)^PASS\s(.*)`)}
	found := 0
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		log := b.String()
		for _, word := range []string{"FAIL", "PASS"} {
			var want []string
			for _, m := range official[word].FindAllStringSubmatch(log, -1) {
				want = append(want, m[1])
			}
			if diff := cmp.Diff(want, slices.Collect(jestFileResults(log, word))); diff != "" {
				t.Fatalf("%s in %q (-official +ours):\n%s", word, log, diff)
			}
			found += len(want)
		}
	}
	t.Logf("%d results found", found)
	if found < 1000 {
		t.Errorf("only %d results: draw logs that hold more", found)
	}
}

// TestStringHelpersEqualTheirReferences compares pySplitString with strings.Split, lastIndex
// with strings.LastIndex, indexPySpace with strings.IndexFunc, pyStrip with testresults.PyStrip,
// pyStripBytes with pyStrip and lowerContains with strings.Contains(strings.ToLower(s), word), on
// random texts.
func TestStringHelpersEqualTheirReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(90, 91))
	seps := []string{" ./node_modules/.bin/jest ", " xvfb-run ", "../..", "Starting browser Chrome", prismTestCommand, "aa"}
	pieces := append([]string{"..", "/", " ./node_modules/.bin/jest", " xvfb-run", "../", "Starting browser", " Chrome",
		"./node_modules/.bin/mocha", "a", "aa", "OK", "Ok", "oK", "FAILED", "Failed", "\u212a", "\u0130", "ÖK", "[", "]", "}", "  ", `"passes": `, "],", "\u0085", "\u1680", "\u2009", "\u205f", "\u3000", "\u2030", "\u00e9"}, readerPieces...)
	split, lowered := 0, 0
	for range 100000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) == 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
		}
		s := b.String()
		sep := seps[rng.IntN(len(seps))]
		for _, last := range append([]string{`  "passes": [`, "  }", "],", "]", "[", "}"}, seps...) {
			if got, want := lastIndex(s, last), strings.LastIndex(s, last); got != want {
				t.Fatalf("%q: LastIndex of %q %d, lastIndex %d", s, last, want, got)
			}
		}
		want := strings.Split(s, sep)
		if diff := cmp.Diff(want, pySplitString(s, sep)); diff != "" {
			t.Fatalf("%q split on %q (-strings.Split +ours):\n%s", s, sep, diff)
		}
		if len(want) > 1 {
			split++
		}
		if got, want := indexPySpace(s), strings.IndexFunc(s, isPySpace); got != want {
			t.Fatalf("%q: IndexFunc(isPySpace) %d, indexPySpace %d", s, want, got)
		}
		if got, want := pyStrip(s), testresults.PyStrip(s); got != want {
			t.Fatalf("%q: testresults.PyStrip %q, pyStrip %q", s, want, got)
		}
		if got := string(pyStripBytes([]byte(s))); got != pyStrip(s) {
			t.Fatalf("%q: pyStrip %q, pyStripBytes %q", s, pyStrip(s), got)
		}
		for _, word := range []string{"ok", "failed"} {
			want := strings.Contains(strings.ToLower(s), word)
			if got := lowerContains(s, word); got != want {
				t.Fatalf("%q holds %q in lower case: %v, lowerContains says %v", s, word, want, got)
			}
			if want {
				lowered++
			}
		}
	}
	t.Logf("%d texts split, %d words found", split, lowered)
	if split < 10000 || lowered < 10000 {
		t.Errorf("only %d splits and %d words: draw texts that hold more", split, lowered)
	}
}

// TestLineFiltersPassEveryMatch: a line that a reader reads is never skipped by its parser's
// lineFilter, on every golden line and on the random lines of TestReadersEqualTheOfficialPatterns.
func TestLineFiltersPassEveryMatch(t *testing.T) {
	redis := func(s string) (string, string, bool) { return redisLine(s) }
	for _, c := range []struct {
		name   string
		filter lineFilter
		read   func(string) (string, string, bool)
		starts []string
	}{
		{"jq", jqFilter, jqLine, []string{"PASS:", "FAIL:", " \tPASS: "}},
		{"micropython", micropythonFilter, micropythonLine, []string{"pass", "FAIL", "\u00a0skip"}},
		{"vitest", vitestFilter, vitestLine, []string{"✓ ", "× ", " ↓\u00a0"}},
		{"redis", redisFilter, redis, []string{"[ok]: ", " [err]: ", "\u3000[skip]:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			inputs := goldenLines(t)
			for range 50000 {
				var b strings.Builder
				b.WriteString(c.starts[rng.IntN(len(c.starts))])
				for range rng.IntN(10) {
					b.WriteString(readerPieces[rng.IntN(len(readerPieces))])
				}
				inputs = append(inputs, b.String())
			}
			read := 0
			for _, line := range inputs {
				if _, _, ok := c.read(pyStrip(line)); ok {
					read++
					if c.filter.skips(line) {
						t.Fatalf("%q is read, and skipped by the filter", line)
					}
				}
			}
			if read < 1000 {
				t.Errorf("only %d lines read", read)
			}
		})
	}
}
