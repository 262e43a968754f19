package logparse

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// parseSeaborn reads "FAILED <id>", "<id> PASSED ..." and "PASSED <id>" lines (seaborn's parser,
// the same in 4.1 and 5). Under Full, seaborn logs are read as any other pytest log.
func parseSeaborn(log string, d Dialect) Statuses {
	if d == Full {
		return pytestParser(pytestVariant{})(log, Full)
	}
	out := Statuses{}
	eachLine(log, func(line string) {
		switch {
		case strings.HasPrefix(line, "FAILED"):
			if _, rest := nextField(line); rest != "" {
				id, _ := nextField(rest)
				if id != "" {
					out[id] = testresults.Failed
				}
			}
		case strings.Contains(line, " PASSED "):
			first, rest := nextField(line)
			if second, _ := nextField(rest); second == "PASSED" {
				out[first] = testresults.Passed
			}
		case strings.HasPrefix(line, "PASSED"):
			_, rest := nextField(line)
			if id, _ := nextField(rest); id != "" {
				out[id] = testresults.Passed
			}
		}
	})
	return out
}

// djangoPassSuffixes are the endings Django's runner gives a passing test.
var djangoPassSuffixes = []string{" ... ok", " ... OK", " ...  OK"}

// djangoSplitResults are the three known ways Django's own output interrupts a result line; the
// test passed when "ok" follows on the next line.
var djangoSplitResults = []struct {
	literal string
	pattern *regexp.Regexp
}{
	{"Testing against Django installed in", regexp.MustCompile(`(?m)^(.*?)\s\.\.\.\sTesting against Django installed in ((?s:.*?)) silenced\)\.\nok$`)},
	{"Internal Server Error: /", regexp.MustCompile(`(?m)^(.*?)\s\.\.\.\sInternal Server Error: /(.*)/\nok$`)},
	{"System check identified no issues (0 silenced)\nok", regexp.MustCompile(`(?m)^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$`)},
}

// parseDjango reads unittest's verbose lines as Django's runner prints them: "<test> ... ok",
// "... skipped 'why'", "... FAIL", "... ERROR", the "FAIL: <test>" / "ERROR: <test>" headers,
// and an "ok" on a later line for the last "<test> ... " seen. The official readings (4.1 and 5
// agree) are reproduced quirk for quirk; Full also reads expected failures and unexpected
// successes, which the official parser ignores.
func parseDjango(log string, d Dialect) Statuses {
	out := Statuses{}
	prevTest, havePrev := "", false
	eachLine(log, func(line string) {
		line = strings.TrimSpace(line)
		if strings.Contains(line, "--version is equivalent to version") {
			out["--version is equivalent to version"] = testresults.Passed
		}
		if i := strings.Index(line, " ... "); i >= 0 {
			prevTest, havePrev = line[:i], true
		}
		for _, suffix := range djangoPassSuffixes {
			if strings.HasSuffix(line, suffix) {
				// Django 1.x prints a migration line and the result of the next test on one line.
				if strings.HasPrefix(line, "Applying sites.0002_alter_domain_unique...test_no_migrations") {
					line = strings.TrimSpace(line[strings.Index(line, "...")+3:])
				}
				out[line[:strings.LastIndex(line, suffix)]] = testresults.Passed
				break
			}
		}
		if i := strings.Index(line, " ... skipped"); i >= 0 {
			out[line[:i]] = testresults.Skipped
		}
		if strings.HasSuffix(line, " ... FAIL") {
			out[line[:strings.Index(line, " ... FAIL")]] = testresults.Failed
		}
		if strings.HasPrefix(line, "FAIL:") {
			if id := djangoHeaderID(line, d); id != "" {
				out[id] = testresults.Failed
			}
		}
		if strings.HasSuffix(line, " ... ERROR") {
			out[line[:strings.Index(line, " ... ERROR")]] = testresults.Error
		}
		if strings.HasPrefix(line, "ERROR:") {
			if id := djangoHeaderID(line, d); id != "" {
				out[id] = testresults.Error
			}
		}
		if d == Full {
			if id, ok := strings.CutSuffix(line, " ... expected failure"); ok {
				out[id] = testresults.XFail
			}
			if id, ok := strings.CutSuffix(line, " ... unexpected success"); ok {
				out[id] = testresults.Failed
			}
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "ok") && havePrev {
			out[prevTest] = testresults.Passed
		}
	})
	for _, split := range djangoSplitResults {
		if !strings.Contains(log, split.literal) {
			continue
		}
		for _, m := range split.pattern.FindAllStringSubmatch(log, -1) {
			out[m[1]] = testresults.Passed
		}
	}
	return out
}

// djangoHeaderID is the test named by a "FAIL: test_x (mod.Class)" header: the official parsers
// take the second field ("test_x"); Full takes the whole name, as the result line spells it.
func djangoHeaderID(line string, d Dialect) string {
	_, rest := nextField(line)
	if d == Full {
		return strings.TrimSpace(rest)
	}
	id, _ := nextField(rest)
	return id
}

// sympyFailureHeader reads a "____ sympy/x/tests/test_y.py:test_z ____" header, whose test
// failed. It gives what the official pattern `(_*) (.*)\.py:(.*) (_*)` finds in the line: the
// text after the first space up to the last ".py:" that has a space after it, then up to the
// last space. (The pattern matches at most once a line: its last group reaches the last space.)
func sympyFailureHeader(line string) (string, bool) {
	first := strings.IndexByte(line, ' ')
	last := strings.LastIndexByte(line, ' ')
	if first < 0 {
		return "", false
	}
	ext := strings.LastIndex(line[:last], ".py:")
	if ext < first+1 {
		return "", false
	}
	return line[first+1:ext] + ".py:" + line[ext+4:last], true
}

// parseSympy reads sympy's bin/test --verbose output: "test_x ok", "test_x F", "test_x E", and
// failure headers. Full also reads "f" (expected failure) and "s" (skipped).
func parseSympy(log string, d Dialect) Statuses {
	out := Statuses{}
	// Headers first, then result lines, as the official parser orders them: a result line wins.
	eachLine(log, func(line string) {
		if !strings.Contains(line, ".py:") {
			return
		}
		if id, ok := sympyFailureHeader(line); ok {
			out[id] = testresults.Failed
		}
	})
	eachLine(log, func(line string) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "test_") {
			return
		}
		id, _ := nextField(line)
		switch {
		case strings.HasSuffix(line, " E"):
			out[id] = testresults.Error
		case strings.HasSuffix(line, " F"):
			out[id] = testresults.Failed
		case strings.HasSuffix(line, " ok"):
			out[id] = testresults.Passed
		case d == Full && strings.HasSuffix(line, " f"):
			out[id] = testresults.XFail
		case d == Full && strings.HasSuffix(line, " s"):
			out[id] = testresults.Skipped
		}
	})
	return out
}
