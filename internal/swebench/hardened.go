package swebench

import (
	"fmt"

	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Where the hardened verdict was read from (eval.json's verdict_source).
const (
	// VerdictPytestChannel: pytestreport's plugin, over the pipe the grader opened.
	VerdictPytestChannel = "pytest result channel"
	// VerdictCapturedOutput: the test command's output as the grader captured it, with the
	// exit status the grader collected.
	VerdictCapturedOutput = "grader-captured test output"
	// VerdictOpaqueLog: an opaque run's own log (OpaqueRisk).
	VerdictOpaqueLog = "eval script log (opaque run)"
)

// capturedRun is what the grader itself observed of the test command: its output, exit status
// and, for pytest, the grader's own plugin's report.
type capturedRun struct {
	// output is exactly what the test command wrote (bounded: boundedCapture).
	output   string
	exitCode int
	timedOut bool
	// channel, when the runner is pytest, is what the grader's plugin reported: the statuses
	// then come from it, not from the output.
	channel *channelResults
}

// channelResults is pytestreport's report of one session.
type channelResults struct {
	results testresults.Results
	// complete: the session reached its end (a run cut short by os._exit proves nothing).
	complete bool
}

func (c capturedRun) source() string {
	if c.channel != nil {
		return VerdictPytestChannel
	}
	return VerdictCapturedOutput
}

// hardenedGrade is the verdict a campaign scores. It differs from Grade on the official log in
// what the tests cannot forge: for pytest the statuses are those the grader's plugin reported
// over its pipe, and only from a session that reached its end (forged PASSED lines and
// os._exit count for nothing); for another runner they are read from the grader's capture of
// the test command alone (a start marker or a "Test Exit Code" line the tests print moves
// nothing). The exit code is the one the grader collected, and under both versions a run with
// no sign of the suite, or a failing exit code without a failed test, is an invalid run (5's
// rule, which 4.1 lacks), where a section rule is no failed test.
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
	statuses := parser.ParseAs(run.output, dialect)
	// Whether any test failed is our full reading's: it takes no section rule ("____ ERROR
	// ____") for a test, which 5's official reading does.
	evidence := parser.Parse(run.output)
	prefixMatch := version == V5
	if run.channel != nil {
		if !run.channel.complete {
			r.LogProblem = "the pytest session did not reach its end (the grader's plugin reported no end of session)"
			return r, nil
		}
		// Whole node ids: a dataset id 4.1 cut at a space matches the ids it begins.
		statuses, evidence, prefixMatch = run.channel.results, run.channel.results, true
	}
	if problem := hardenedRunCheck(evidence, run.output, r.ExitCode); problem != "" {
		r.Error = "invalid run: " + problem
		return r, nil
	}
	order := matchOrder{source: run.output, parse: func(s string) logparse.Statuses { return parser.ParseAs(s, dialect) }}
	if run.channel != nil {
		order.parse = nil
	}
	rules := judgeRules{prefixMatch: prefixMatch, order: order, failOnlyPrefix: true,
		notRunXfail: func() logparse.Statuses { return parser.Parse(run.output) }, fullParse: parser.Parse}
	return judgeRun(inst, r, statuses, rules), nil
}

// hardenedRunCheck is 5's check that the run happened, under both versions and stricter: the
// exit code must agree with the results even when nothing was parsed, and evidence that the
// suite ran is our runners' summaries or 5.0.1's counts.
func hardenedRunCheck(statuses logparse.Statuses, output string, exitCode *int) string {
	if len(statuses) == 0 && !testresults.SuiteRan(output) && !officialSuiteRan5.MatchString(output) {
		return "no test results and no sign that the test suite ran"
	}
	return failingExitWithoutFailure(statuses, exitCode)
}
