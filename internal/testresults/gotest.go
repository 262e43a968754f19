package testresults

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// ReadGoTestJSON reads "go test -json" events. A test's id is "package::TestName" (subtests
// "package::TestName/sub"). A test that started but reported no result (a panic, a timeout)
// is ERROR. Lines that are not JSON events (build output) are ignored.
func ReadGoTestJSON(r io.Reader) (Results, error) {
	res := Results{}
	var ev struct {
		Action  string
		Package string
		Test    string
	}
	err := scanLines(r, func(line []byte) {
		if len(line) == 0 || line[0] != '{' || bytes.Contains(line, []byte(`"Action":"output"`)) {
			return
		}
		ev.Action, ev.Package, ev.Test = "", "", ""
		if json.Unmarshal(line, &ev) != nil || ev.Test == "" {
			return
		}
		id := ev.Package + "::" + ev.Test
		switch ev.Action {
		case "run":
			if _, seen := res[id]; !seen {
				res[id] = Error // replaced by the result event, if there is one
			}
		case "pass":
			res[id] = Passed
		case "fail":
			res[id] = Failed
		case "skip":
			res[id] = Skipped
		}
	})
	return res, err
}

var goTestStatus = map[string]Status{
	"PASS": Passed, "FAIL": Failed, "SKIP": Skipped,
}

// goTestResult reads a "--- PASS: TestX/sub (0.01s)" line (already trimmed) as SWE-bench's
// pattern `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$` does: the name runs to the last " (" that
// leaves a non-empty duration.
func goTestResult(line string) (string, Status, bool) {
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

// ParseGoTestVerbose reads go test -v result lines (subtests are indented; indentation is
// dropped). The id is the test name, "TestX/sub". A test reported twice keeps its last status.
func ParseGoTestVerbose(log string, o ConsoleOptions) Results {
	return markedLines(log, o.StripANSI, func(line string) bool { return strings.Contains(line, "--- ") }, goTestResult)
}
