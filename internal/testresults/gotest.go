package testresults

import (
	"bytes"
	"encoding/json"
	"io"
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
