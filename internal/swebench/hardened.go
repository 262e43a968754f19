package swebench

import (
	"fmt"
)

// Where the hardened verdict was read from (eval.json's verdict_source).
const (
	// VerdictCapturedOutput: the test command's output as the grader captured it, with the
	// exit status the grader collected.
	VerdictCapturedOutput = "grader-captured test output"
	// VerdictOpaqueLog: an opaque run's own log (OpaqueRisk).
	VerdictOpaqueLog = "eval script log (opaque run)"
)

// capturedRun is what the grader itself observed of the test command: nothing in it comes
// from a line the tests printed about themselves, except the output being parsed.
type capturedRun struct {
	// output is exactly what the test command wrote (bounded: boundedCapture).
	output   string
	exitCode int
	timedOut bool
}

// hardenedGrade is the verdict a campaign scores. It differs from Grade on the official log in
// what the tests cannot forge: the parsed text is the grader's capture of the test command
// alone (a start marker, a "Test Exit Code" line or a section rule the tests print moves
// nothing), the exit code is the one the grader collected, and under both versions a run with
// no sign of the suite or a failing exit code without a failed test is an invalid run (5's
// rule, which 4.1 lacks).
func hardenedGrade(inst Instance, version GradingVersion, parserOverride string, run capturedRun) (InstanceReport, error) {
	dialect, err := version.dialect()
	if err != nil {
		return InstanceReport{}, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	parser, err := ParserFor(inst, version, parserOverride)
	if err != nil {
		return InstanceReport{}, err
	}
	r := InstanceReport{InstanceID: inst.InstanceID, PatchExists: true, Version: version, Parser: parser.Name(), Resolution: ResolvedNo}
	if run.timedOut {
		r.Error = "the tests timed out"
		return r, nil
	}
	r.PatchSuccessfullyApplied = true
	code := run.exitCode
	r.ExitCode = &code
	return judgeRun(inst, r, parser, parser.ParseAs(run.output, dialect), run.output, true), nil
}
