package testresults

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JUnitOptions choose the rules by which ReadJUnit and ParseJUnitLog settle a test's status.
// The zero value is the bundle grader's reading.
type JUnitOptions struct {
	// XFail says which <skipped> is an expected failure.
	XFail JUnitXFail
	// Repeats says how a test id with several verdicts is settled.
	Repeats JUnitRepeats
	// LastAttribute takes the last of a repeated attribute (name="a" name="b", which
	// encoding/xml accepts); otherwise the first counts.
	LastAttribute bool
}

// JUnitXFail is a rule for telling pytest's expected failures from skips.
type JUnitXFail int

const (
	// XFailByType reads a <skipped> whose type contains "xfail" as XFAIL, a test that never ran
	// (xfail(run=False), message "[NOTRUN]") included.
	XFailByType JUnitXFail = iota
	// XFailPytestRan reads only type "pytest.xfail" as XFAIL, and a "[NOTRUN]" one as SKIPPED:
	// that test never ran.
	XFailPytestRan
)

// JUnitRepeats is a rule for a test id that has several verdicts.
type JUnitRepeats int

const (
	// KeepWorst keeps the worst verdict of an id across all its <testcase> elements and their
	// children: ERROR > FAILED > SKIPPED > XFAIL > PASSED.
	KeepWorst JUnitRepeats = iota
	// LastTestcase starts each <testcase> element afresh at PASSED, so a repeated id keeps its
	// last element's verdict; within one element ERROR > FAILED > SKIPPED = XFAIL > PASSED, and
	// of a SKIPPED and an XFAIL the first stays.
	LastTestcase
)

// ReadJUnit reads a JUnit XML report: the whole of r is the report (any nesting of
// <testsuites>/<testsuite>, every root element read) and must be well-formed. A test's id is
// "classname.name", or "name" without a classname. A <failure> is FAILED, an <error> ERROR, a
// <skipped> SKIPPED or XFAIL by o.XFail.
func ReadJUnit(r io.Reader, o JUnitOptions) (Results, error) {
	res, err := readJUnit(xml.NewDecoder(r).Token, false, o)
	if err != nil {
		return nil, fmt.Errorf("junit xml: %w", err)
	}
	return res, nil
}

// ParseJUnitLog reads the first JUnit XML document in a runner's log, as ReadJUnit does but
// leniently: text before its first "<testsuite" and after its closing </testsuites> is ignored,
// the XML is read in encoding/xml's non-strict mode, and a truncated or broken document keeps
// what was read.
func ParseJUnitLog(log string, o JUnitOptions) Results {
	start := strings.Index(log, "<testsuite")
	if start < 0 {
		return Results{}
	}
	dec := xml.NewDecoder(strings.NewReader(log[start:]))
	dec.Strict = false
	res, _ := readJUnit(dec.RawToken, true, o) // a lenient read keeps what it read and never fails
	return res
}

// readJUnit reads tokens until the end; inLog stops at the first </testsuites> and at the first
// error, keeping what was read.
func readJUnit(next func() (xml.Token, error), inLog bool, o JUnitOptions) (Results, error) {
	res := Results{}
	var current string // id of the open <testcase>, "" outside one
	for {
		tok, err := next()
		if errors.Is(err, io.EOF) || (err != nil && inLog) {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				current = junitID(attr(t, "classname", o.LastAttribute), attr(t, "name", o.LastAttribute))
				if o.Repeats == LastTestcase {
					res[current] = Passed
				} else {
					res.Keep(current, Passed)
				}
			case "failure":
				o.verdict(res, current, Failed)
			case "error":
				o.verdict(res, current, Error)
			case "skipped":
				o.verdict(res, current, o.skipStatus(t))
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "testcase":
				current = ""
			case "testsuites":
				if inLog {
					return res, nil
				}
			}
		}
	}
}

// verdict records a child element's status for the open testcase by o.Repeats.
func (o JUnitOptions) verdict(res Results, id string, s Status) {
	if id == "" {
		return
	}
	if o.Repeats == KeepWorst {
		res.Keep(id, s)
		return
	}
	if junitChildRank[s] > junitChildRank[res[id]] {
		res[id] = s
	}
}

// junitChildRank is LastTestcase's order within one <testcase>.
var junitChildRank = map[Status]int{Passed: 0, XFail: 1, Skipped: 1, Failed: 2, Error: 3}

func (o JUnitOptions) skipStatus(e xml.StartElement) Status {
	typ := attr(e, "type", o.LastAttribute)
	switch o.XFail {
	case XFailPytestRan:
		if typ == "pytest.xfail" && !strings.Contains(attr(e, "message", o.LastAttribute), "[NOTRUN]") {
			return XFail
		}
	default:
		if strings.Contains(typ, "xfail") {
			return XFail
		}
	}
	return Skipped
}

func junitID(class, name string) string {
	if class == "" {
		return name
	}
	return class + "." + name
}

// attr returns the value of e's attribute name, the first or the last when it repeats.
func attr(e xml.StartElement, name string, last bool) string {
	value := ""
	for _, a := range e.Attr {
		if a.Name.Local == name {
			if !last {
				return a.Value
			}
			value = a.Value
		}
	}
	return value
}
