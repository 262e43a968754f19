package testresults

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadJUnit reads a JUnit XML report (any nesting of <testsuites>/<testsuite>). A test's id is
// "classname.name", or "name" without a classname. A <failure> is FAILED, an <error> ERROR,
// a <skipped> SKIPPED, except pytest's xfail (<skipped type="pytest.xfail">), which is XFAIL.
func ReadJUnit(r io.Reader) (Results, error) {
	res := Results{}
	dec := xml.NewDecoder(r)
	var current string // id of the open <testcase>, "" outside one
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("junit xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				current = junitID(attr(t, "classname"), attr(t, "name"))
				res.set(current, Passed)
			case "failure":
				if current != "" {
					res.set(current, Failed)
				}
			case "error":
				if current != "" {
					res.set(current, Error)
				}
			case "skipped":
				if current != "" {
					st := Skipped
					if strings.Contains(attr(t, "type"), "xfail") {
						st = XFail
					}
					res.set(current, st)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "testcase" {
				current = ""
			}
		}
	}
	return res, nil
}

func junitID(class, name string) string {
	if class == "" {
		return name
	}
	return class + "." + name
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
