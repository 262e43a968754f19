package logparse

import (
	"encoding/xml"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

var goTestStatus = map[string]testresults.Status{
	"PASS": testresults.Passed, "FAIL": testresults.Failed, "SKIP": testresults.Skipped,
}

// goTestResult reads a "--- PASS: TestX/sub (0.01s)" line (already trimmed) as the official
// pattern `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$` does: the name runs to the last " (" that
// leaves a non-empty duration.
func goTestResult(line string) (string, testresults.Status, bool) {
	if len(line) < len("--- PASS: ") || !strings.HasPrefix(line, "--- ") || line[8:10] != ": " || !strings.HasSuffix(line, ")") {
		return "", "", false
	}
	status, ok := goTestStatus[line[4:8]]
	if !ok {
		return "", "", false
	}
	open := strings.LastIndex(line[:len(line)-2], " (")
	if open <= 10 {
		return "", "", false
	}
	return line[10:open], status, true
}

// parseGoTest reads go test -v result lines (subtests are indented; indentation is dropped).
func parseGoTest(log string, d Dialect) Statuses {
	return markedLines(log, d, func(line string) bool { return strings.Contains(line, "--- ") }, goTestResult)
}

// cargoResultOfficial reads a "test a::b ... ok" line (already trimmed) as the official pattern
// `^test\s+(\S+)\s+\.\.\.\s+(\w+)$` does.
func cargoResultOfficial(line string) (name, outcome string, ok bool) {
	rest, found := strings.CutPrefix(line, "test")
	if !found || rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	name, rest = nextField(rest)
	if rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	rest, found = strings.CutPrefix(strings.TrimLeftFunc(rest, unicode.IsSpace), "...")
	if !found || rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	outcome = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if outcome == "" || strings.ContainsFunc(outcome, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
		return "", "", false
	}
	return name, outcome, true
}

// parseCargo reads cargo test / libtest result lines. The official parser knows only "ok" and
// "FAILED" and single-token names; Full also reads "ignored" (SKIPPED) and names followed by
// " - should panic".
func parseCargo(log string, d Dialect) Statuses {
	out := Statuses{}
	eachLine(log, func(line string) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "test") {
			return
		}
		if d != Full {
			if name, outcome, ok := cargoResultOfficial(line); ok {
				switch outcome {
				case "ok":
					out[name] = testresults.Passed
				case "FAILED":
					out[name] = testresults.Failed
				}
			}
			return
		}
		name, outcome, ok := strings.Cut(strings.TrimPrefix(stripANSI(line), "test "), " ... ")
		if !ok || name == "" || strings.HasPrefix(line, "test result:") {
			return
		}
		name = strings.TrimSuffix(name, " - should panic")
		word, _ := nextField(outcome)
		switch strings.TrimSuffix(word, ",") {
		case "ok":
			out[name] = testresults.Passed
		case "FAILED":
			out[name] = testresults.Failed
		case "ignored":
			out[name] = testresults.Skipped
		}
	})
	return out
}

var jestStatus = map[rune]testresults.Status{
	'✓': testresults.Passed, '✕': testresults.Failed, '○': testresults.Skipped,
}

// jestResult reads a verbose Jest line (already trimmed) as the official pattern
// `^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$` does: a mark, one space, the title, and a
// " (12 ms)" duration dropped when there is one.
func jestResult(line string) (string, testresults.Status, bool) {
	mark, size := utf8.DecodeRuneInString(line)
	status, ok := jestStatus[mark]
	if !ok || len(line) <= size {
		return "", "", false
	}
	space, spaceSize := utf8.DecodeRuneInString(line[size:])
	if !unicode.IsSpace(space) {
		return "", "", false
	}
	title := line[size+spaceSize:]
	if title == "" {
		return "", "", false
	}
	if open := strings.LastIndex(title, "("); open > 1 && isSpaceByte(title[open-1]) && isJestDuration(title[open:]) {
		title = title[:open-1]
	}
	return title, status, true
}

// isJestDuration reports whether s is "(<digits><spaces>[m]s)".
func isJestDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	s, ok = strings.CutSuffix(s, "s)")
	if !ok {
		return false
	}
	s = strings.TrimSuffix(s, "m")
	digits := strings.TrimRightFunc(s, unicode.IsSpace)
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// parseJest reads Jest --verbose output; the titles are the ids.
func parseJest(log string, d Dialect) Statuses {
	return markedLines(log, d, func(line string) bool { return strings.ContainsAny(line, "✓✕○") }, jestResult)
}

// parseJUnit reads the first JUnit XML document in log (text around it is ignored). A test id is
// "<classname>.<name>", or the name alone when there is no classname.
func parseJUnit(log string, _ Dialect) Statuses {
	out := Statuses{}
	start := strings.Index(log, "<testsuite")
	if start < 0 {
		return out
	}
	dec := xml.NewDecoder(strings.NewReader(log[start:]))
	dec.Strict = false
	var current string
	for {
		tok, err := dec.RawToken()
		if err != nil {
			// The end of the log, or a truncated document: keep what was read.
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				current = junitID(t.Attr)
				out[current] = testresults.Passed
			case "failure":
				setJUnit(out, current, testresults.Failed)
			case "error":
				setJUnit(out, current, testresults.Error)
			case "skipped":
				setJUnit(out, current, junitSkipStatus(t.Attr))
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "testcase":
				current = ""
			case "testsuites":
				return out
			}
		}
	}
}

// junitSkipStatus tells pytest's expected failures (type "pytest.xfail") from skips; an xfail
// that never ran ("[NOTRUN]") stays a skip.
func junitSkipStatus(attrs []xml.Attr) testresults.Status {
	var typ, msg string
	for _, a := range attrs {
		switch a.Name.Local {
		case "type":
			typ = a.Value
		case "message":
			msg = a.Value
		}
	}
	if typ == "pytest.xfail" && !strings.Contains(msg, "[NOTRUN]") {
		return testresults.XFail
	}
	return testresults.Skipped
}

var junitRank = map[testresults.Status]int{testresults.Passed: 0, testresults.XFail: 1, testresults.Skipped: 1, testresults.Failed: 2, testresults.Error: 3}

func junitID(attrs []xml.Attr) string {
	var class, name string
	for _, a := range attrs {
		switch a.Name.Local {
		case "classname":
			class = a.Value
		case "name":
			name = a.Value
		}
	}
	if class == "" {
		return name
	}
	return class + "." + name
}

// setJUnit records a child element's verdict; an error outranks a failure outranks a skip.
func setJUnit(out Statuses, id string, s testresults.Status) {
	if id == "" {
		return
	}
	if junitRank[s] > junitRank[out[id]] {
		out[id] = s
	}
}

// suiteRanEvidence matches the closing summary of a runner: pytest's "=== 3 passed in 0.1s ===",
// unittest's "Ran 5 tests in", go test's "ok  pkg" / "FAIL pkg" / "PASS", libtest's
// "test result:", Jest's "Tests:", sympy's "tests finished:", a JUnit document.
var suiteRanEvidence = regexp.MustCompile(`(?m)^(=+ .*\b(passed|failed|skipped|errors?|xfailed|xpassed|deselected|no tests ran)\b.* in [0-9.]+s|Ran [0-9]+ tests? in |(ok|FAIL)\s+\S+|PASS$|FAIL$|test result: |Tests:\s+[0-9]|=+ tests finished: )|<testsuites?[ >]`)

// SuiteRan reports whether log shows that a test runner ran to its summary. SWE-bench 5 treats a
// log with no test results and no such evidence as an invalid run.
func SuiteRan(log string) bool {
	return suiteRanEvidence.MatchString(log)
}

// markedLines reads the lines that marked accepts with result, on the trimmed line; the Full
// dialect strips ANSI codes first, as the official parsers do not.
func markedLines(log string, d Dialect, marked func(string) bool, result func(string) (string, testresults.Status, bool)) Statuses {
	out := Statuses{}
	eachLine(log, func(line string) {
		if !marked(line) {
			return
		}
		if d == Full {
			line = stripANSI(line)
		}
		if name, status, ok := result(strings.TrimSpace(line)); ok {
			out[name] = status
		}
	})
	return out
}
