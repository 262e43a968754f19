package testresults

import (
	"bufio"
	"fmt"
	"io"
)

// Results maps a test id to its outcome.
type Results map[string]Status

// Format names a test runner's output format, as a bundle declares it.
type Format string

const (
	FormatPytest     Format = "pytest"      // pytest -rA and/or -v console output
	FormatUnittest   Format = "unittest"    // python -m unittest -v output
	FormatJUnit      Format = "junit"       // JUnit XML report
	FormatGoTestJSON Format = "gotest-json" // go test -json event stream
)

// Formats lists every format Read accepts.
var Formats = []Format{FormatPytest, FormatUnittest, FormatJUnit, FormatGoTestJSON}

// Read parses r in the given format.
func Read(f Format, r io.Reader) (Results, error) {
	switch f {
	case FormatPytest:
		return ReadPytest(r)
	case FormatUnittest:
		return ReadUnittest(r)
	case FormatJUnit:
		return ReadJUnit(r)
	case FormatGoTestJSON:
		return ReadGoTestJSON(r)
	}
	return nil, fmt.Errorf("unknown test result format %q (want one of %v)", f, Formats)
}

// severity orders statuses so that a test reported twice keeps its worst outcome: pytest
// reports a test whose call passed and whose teardown failed as both PASSED and ERROR.
func severity(s Status) int {
	switch s {
	case Passed:
		return 0
	case XFail:
		return 1
	case Skipped:
		return 2
	case Failed:
		return 3
	case Error:
		return 4
	}
	return -1
}

// set records s for id unless a worse status is already recorded.
func (r Results) set(id string, s Status) {
	if old, ok := r[id]; ok && severity(old) >= severity(s) {
		return
	}
	r[id] = s
}

// maxLine bounds one line of runner output; longer lines are read in pieces and cannot be
// result lines anyway.
const maxLine = 1 << 20

// scanLines calls fn for each line of r, without its line ending.
func scanLines(r io.Reader, fn func(line []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	sc.Split(splitLongLines)
	for sc.Scan() {
		line := sc.Bytes()
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		fn(line)
	}
	return sc.Err()
}

// splitLongLines is bufio.ScanLines that cuts a line longer than maxLine instead of failing.
func splitLongLines(data []byte, atEOF bool) (int, []byte, error) {
	adv, tok, err := bufio.ScanLines(data, atEOF)
	if adv == 0 && tok == nil && err == nil && len(data) >= maxLine {
		return len(data), data, nil
	}
	return adv, tok, err
}
