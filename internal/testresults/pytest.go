package testresults

import (
	"io"
	"strings"
)

// ReadPytest reads pytest console output as the bundle grader does (the PytestNodeIDs
// grammar): the "-rA" short summary lines ("PASSED tests/x.py::test_a", "FAILED
// tests/x.py::test_b - msg") and the "-v" progress lines ("tests/x.py::test_a PASSED [ 50%]",
// also with xdist's "[gw0] [ 50%] PASSED id" form). XPASS counts as PASSED. ANSI colour codes are
// ignored. Skip summaries of the form "SKIPPED [1] file:line: reason" carry no test id and are
// ignored. A test reported twice keeps its worst status.
func ReadPytest(r io.Reader) (Results, error) {
	return readPytestStream(r, PytestOptions{Lines: PytestNodeIDs, StripANSI: true, KeepWorst: true})
}

// pytestWords are the status words pytest prints, in the order SWE-bench tries them. No word is
// a prefix or suffix of another, so the order never changes a match.
var pytestWords = []struct {
	word   string
	status Status
}{
	{"PASSED", Passed}, {"FAILED", Failed}, {"SKIPPED", Skipped}, {"ERROR", Error},
	{"XFAIL", XFail}, {"XPASS", Passed},
}

// swebenchPytestWords are the words SWE-bench's pytest parsers know: all but XPASS.
var swebenchPytestWords = pytestWords[:5]

// statusPrefix matches a status word at the start of line followed by a space or the end.
func statusPrefix(line string) (Status, int, bool) {
	for _, w := range pytestWords {
		if strings.HasPrefix(line, w.word) && (len(line) == len(w.word) || line[len(w.word)] == ' ') {
			return w.status, len(w.word), true
		}
	}
	return "", 0, false
}

// readPytestNodeIDs reads a line with the PytestNodeIDs grammar.
func readPytestNodeIDs(line string) (string, Status, bool) {
	if id, st, ok := pytestSummaryLine(line); ok {
		return id, st, true
	}
	return pytestVerboseLine(line)
}

// pytestSummaryLine parses "STATUS id[ - message]", also after xdist's "[gwN] [ nn%] ".
func pytestSummaryLine(line string) (string, Status, bool) {
	for len(line) > 0 && line[0] == '[' { // xdist worker and progress prefixes
		end := strings.IndexByte(line, ']')
		if end < 0 {
			return "", "", false
		}
		line = strings.TrimLeft(line[end+1:], " ")
	}
	st, n, ok := statusPrefix(line)
	if !ok {
		return "", "", false
	}
	id := strings.TrimRight(cutMessage(strings.TrimLeft(line[n:], " ")), " ")
	// A test id names a node ("f.py::t") or a module ("f.py" for a collection error); this
	// leaves out "SKIPPED [1] file:line: reason" and prose that starts with a status word.
	if !strings.Contains(id, "::") && !strings.HasSuffix(id, ".py") {
		return "", "", false
	}
	return id, st, true
}

// cutMessage drops a " - message" suffix, ignoring " - " inside a parametrize bracket.
func cutMessage(rest string) string {
	depth := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case ' ':
			if depth == 0 && strings.HasPrefix(rest[i:], " - ") {
				return rest[:i]
			}
		}
	}
	return rest
}

// pytestVerboseLine parses "id STATUS[ (reason)][ [ nn%]]" where id contains "::".
func pytestVerboseLine(line string) (string, Status, bool) {
	sep := strings.Index(line, "::")
	if sep <= 0 || line[0] == ' ' {
		return "", "", false
	}
	// The status is the first status word after the id. An id has no space except inside its
	// parametrize bracket, which opens before any space.
	start := sep
	space := strings.IndexByte(line[sep:], ' ')
	if open := strings.IndexByte(line[sep:], '['); open >= 0 && (space < 0 || open < space) {
		start = matchingBracketEnd(line, sep+open)
	}
	for i := start; i < len(line); i++ {
		if line[i] != ' ' {
			continue
		}
		st, n, ok := statusPrefix(line[i+1:])
		if !ok {
			continue
		}
		tail := strings.TrimLeft(line[i+1+n:], " ")
		if len(tail) == 0 || tail[0] == '[' || tail[0] == '(' {
			return line[:i], st, true
		}
	}
	return "", "", false
}

// matchingBracketEnd returns the index after the bracket that closes line[open].
func matchingBracketEnd(line string, open int) int {
	depth := 0
	for i := open; i < len(line); i++ {
		switch line[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(line)
}
