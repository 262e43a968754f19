package testresults

import (
	"fmt"
	"io"
)

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

// Read parses r in the given format, as the bundle grader reads a suite's output.
func Read(f Format, r io.Reader) (Results, error) {
	switch f {
	case FormatPytest:
		return ReadPytest(r)
	case FormatUnittest:
		return ReadUnittest(r)
	case FormatJUnit:
		return ReadJUnit(r, JUnitOptions{})
	case FormatGoTestJSON:
		return ReadGoTestJSON(r)
	}
	return nil, fmt.Errorf("unknown test result format %q (want one of %v)", f, Formats)
}
