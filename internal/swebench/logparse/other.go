package logparse

import (
	"encoding/xml"
	"regexp"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// goTestResult is a "--- PASS: TestX/sub (0.01s)" line of go test -v.
var goTestResult = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`)

var goTestStatus = map[string]testresults.Status{
	"PASS": testresults.Passed, "FAIL": testresults.Failed, "SKIP": testresults.Skipped,
}

// parseGoTest reads go test -v result lines (subtests are indented; indentation is dropped).
func parseGoTest(log string, d Dialect) Statuses {
	out := Statuses{}
	eachLine(log, func(line string) {
		if !strings.Contains(line, "--- ") {
			return
		}
		if d == Full {
			line = stripANSI(line)
		}
		if m := goTestResult.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out[m[2]] = goTestStatus[m[1]]
		}
	})
	return out
}

// cargoResultOfficial is the official reading of a "test a::b ... ok" line.
var cargoResultOfficial = regexp.MustCompile(`^test\s+(\S+)\s+\.\.\.\s+(\w+)$`)

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
			if m := cargoResultOfficial.FindStringSubmatch(line); m != nil {
				switch m[2] {
				case "ok":
					out[m[1]] = testresults.Passed
				case "FAILED":
					out[m[1]] = testresults.Failed
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

// jestResult is a verbose Jest result: a mark, the test title, maybe "(12 ms)".
var jestResult = regexp.MustCompile(`^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`)

var jestStatus = map[string]testresults.Status{
	"✓": testresults.Passed, "✕": testresults.Failed, "○": testresults.Skipped,
}

// parseJest reads Jest --verbose output; the titles are the ids.
func parseJest(log string, d Dialect) Statuses {
	out := Statuses{}
	eachLine(log, func(line string) {
		if !strings.ContainsAny(line, "✓✕○") {
			return
		}
		if d == Full {
			line = stripANSI(line)
		}
		if m := jestResult.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out[m[2]] = jestStatus[m[1]]
		}
	})
	return out
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
		tok, err := dec.Token()
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
var suiteRanEvidence = regexp.MustCompile(`(?m)^(=+ .*\b(passed|failed|skipped|errors?|xfailed|xpassed|deselected|no tests ran)\b.* in [0-9.]+s|Ran [0-9]+ tests? in |(ok|FAIL)\s+\S+|PASS$|FAIL$|test result: |Tests:\s+[0-9]|=+ tests finished: |<testsuites?[ >])`)

// SuiteRan reports whether log shows that a test runner ran to its summary. SWE-bench 5 treats a
// log with no test results and no such evidence as an invalid run.
func SuiteRan(log string) bool {
	return suiteRanEvidence.MatchString(log)
}
