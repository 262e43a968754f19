package testresults

import (
	"regexp"
	"strings"
)

// pySpace is Python's \s in a str pattern as an RE2 class.
const pySpace = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// djangoPassSuffixes are the endings Django's runner gives a passing test.
var djangoPassSuffixes = []string{" ... ok", " ... OK", " ...  OK"}

// djangoSplitResults are the three known ways Django's own output interrupts a result line; the
// test passed when "ok" follows on the next line. pySpace stands for Python's \s, which is
// wider than RE2's (vertical tab, U+001C..U+001F and Unicode spaces).
var djangoSplitResults = []struct {
	literal string
	pattern *regexp.Regexp
}{
	{"Testing against Django installed in", regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `Testing against Django installed in ((?s:.*?)) silenced\)\.\nok$`)},
	{"Internal Server Error: /", regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `Internal Server Error: /(.*)/\nok$`)},
	{"System check identified no issues (0 silenced)\nok", regexp.MustCompile(`(?m)^(.*?)` + pySpace + `\.\.\.` + pySpace + `System check identified no issues \(0 silenced\)\nok$`)},
}

// DjangoOptions choose how ParseDjango reads a log. The zero value is SWE-bench's
// parse_log_django (4.1 and 5 agree), quirk for quirk.
type DjangoOptions struct {
	// WholeHeaderNames takes the whole name of a "FAIL: test_x (mod.Class)" header, as the
	// result line spells it; SWE-bench keeps its first word ("test_x").
	WholeHeaderNames bool
	// ExpectedFailures reads "... expected failure" as XFAIL and "... unexpected success" as
	// FAILED; SWE-bench ignores both.
	ExpectedFailures bool
}

// ParseDjango reads unittest's verbose lines as Django's runner prints them: "<test> ... ok",
// "... skipped 'why'", "... FAIL", "... ERROR", the "FAIL: <test>" / "ERROR: <test>" headers,
// and an "ok" on a later line for the last "<test> ... " seen. The id is the test as printed,
// "test_x (mod.Class)". A test reported twice keeps its last status.
func ParseDjango(log string, o DjangoOptions) Results {
	out := Results{}
	prevTest, havePrev := "", false
	eachLine(log, func(line string) {
		line = pyTrim(line)
		if strings.Contains(line, "--version is equivalent to version") {
			out["--version is equivalent to version"] = Passed
		}
		if i := strings.Index(line, " ... "); i >= 0 {
			prevTest, havePrev = line[:i], true
		}
		for _, suffix := range djangoPassSuffixes {
			if strings.HasSuffix(line, suffix) {
				// Django 1.x prints a migration line and the result of the next test on one line.
				if strings.HasPrefix(line, "Applying sites.0002_alter_domain_unique...test_no_migrations") {
					line = pyTrim(line[strings.Index(line, "...")+3:])
				}
				out[line[:strings.LastIndex(line, suffix)]] = Passed
				break
			}
		}
		if i := strings.Index(line, " ... skipped"); i >= 0 {
			out[line[:i]] = Skipped
		}
		if strings.HasSuffix(line, " ... FAIL") {
			out[line[:strings.Index(line, " ... FAIL")]] = Failed
		}
		if strings.HasPrefix(line, "FAIL:") {
			if id := djangoHeaderID(line, o.WholeHeaderNames); id != "" {
				out[id] = Failed
			}
		}
		if strings.HasSuffix(line, " ... ERROR") {
			out[line[:strings.Index(line, " ... ERROR")]] = Error
		}
		if strings.HasPrefix(line, "ERROR:") {
			if id := djangoHeaderID(line, o.WholeHeaderNames); id != "" {
				out[id] = Error
			}
		}
		if o.ExpectedFailures {
			if id, ok := strings.CutSuffix(line, " ... expected failure"); ok {
				out[id] = XFail
			}
			if id, ok := strings.CutSuffix(line, " ... unexpected success"); ok {
				out[id] = Failed
			}
		}
		if strings.HasPrefix(line, "ok") && havePrev {
			out[prevTest] = Passed
		}
	})
	for _, split := range djangoSplitResults {
		if !strings.Contains(log, split.literal) {
			continue
		}
		for _, m := range split.pattern.FindAllStringSubmatch(log, -1) {
			out[m[1]] = Passed
		}
	}
	return out
}

// djangoHeaderID is the test named by a "FAIL: test_x (mod.Class)" header (WholeHeaderNames).
func djangoHeaderID(line string, wholeName bool) string {
	_, rest := pyNextField(line)
	if wholeName {
		return pyTrim(rest)
	}
	id, _ := pyNextField(rest)
	return id
}
