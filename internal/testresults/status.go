// Package testresults is the one test-output parsing stack: the status vocabulary, the line
// readers and a parser per runner format (pytest, unittest and Django's runner, sympy, JUnit XML,
// go test, cargo test, Jest). Both graders read through it: the bundle grader with Read, the
// SWE-bench grader through internal/swebench/logparse, which maps SWE-bench's parser names and
// harness versions onto these parsers' options.
package testresults

// Status is a test's outcome, with SWE-bench's names.
type Status string

const (
	Passed  Status = "PASSED"
	Failed  Status = "FAILED"
	Skipped Status = "SKIPPED"
	Error   Status = "ERROR"
	XFail   Status = "XFAIL"
)

// Results maps a test id to its outcome.
type Results map[string]Status

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

// Keep records s for id unless a worse status is already recorded.
func (r Results) Keep(id string, s Status) {
	if old, ok := r[id]; ok && severity(old) >= severity(s) {
		return
	}
	r[id] = s
}
