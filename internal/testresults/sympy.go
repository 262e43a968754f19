package testresults

import "strings"

// sympyFailureHeader reads a "____ sympy/x/tests/test_y.py:test_z ____" header, whose test
// failed. It gives what SWE-bench's pattern `(_*) (.*)\.py:(.*) (_*)` finds in the line: the
// text after the first space up to the last ".py:" that has a space after it, then up to the
// last space. (The pattern matches at most once a line: its last group reaches the last space.)
func sympyFailureHeader(line string) (string, bool) {
	first := strings.IndexByte(line, ' ')
	last := strings.LastIndexByte(line, ' ')
	if first < 0 {
		return "", false
	}
	ext := -1 // the last ".py:" before the last space, found from its ":"
	for end := last; ; {
		c := strings.LastIndexByte(line[:end], ':')
		if c < 3 {
			break
		}
		if line[c-3:c] == ".py" {
			ext = c - 3
			break
		}
		end = c
	}
	if ext < first+1 {
		return "", false
	}
	return line[first+1 : last], true // the groups with ".py:" between them
}

// SympyOptions choose how ParseSympy reads a log. The zero value is SWE-bench's parse_log_sympy
// (4.1 and 5 agree).
type SympyOptions struct {
	// ExpectedFailuresAndSkips also reads "test_x f" (XFAIL) and "test_x s" (SKIPPED).
	ExpectedFailuresAndSkips bool
}

// ParseSympy reads sympy's bin/test --verbose output: "test_x ok", "test_x F", "test_x E", and
// failure headers.
func ParseSympy(log string, o SympyOptions) Results {
	out := Results{}
	// Headers first, then result lines, as SWE-bench's parser orders them: a result line wins.
	eachLine(log, func(line string) {
		if !strings.Contains(line, ".py:") {
			return
		}
		if id, ok := sympyFailureHeader(line); ok {
			out[id] = Failed
		}
	})
	eachLine(log, func(line string) {
		line = pyTrim(line)
		if !strings.HasPrefix(line, "test_") {
			return
		}
		id, _ := pyNextField(line)
		switch {
		case strings.HasSuffix(line, " E"):
			out[id] = Error
		case strings.HasSuffix(line, " F"):
			out[id] = Failed
		case strings.HasSuffix(line, " ok"):
			out[id] = Passed
		case o.ExpectedFailuresAndSkips && strings.HasSuffix(line, " f"):
			out[id] = XFail
		case o.ExpectedFailuresAndSkips && strings.HasSuffix(line, " s"):
			out[id] = Skipped
		}
	})
	return out
}
