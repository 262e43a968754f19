// Package testresults reads test runner output into test id → status maps.
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
