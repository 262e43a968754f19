package swesweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// The flake re-check (Options.FlakeRechecks, docs/task-format.md): a visible test that passed
// at the base and does not pass in the visible run is re-run, alone with the other such tests,
// up to R times; it is cleared, and no longer a regression, when it passes in at least one
// re-run. Off by default: SWE-sweep counts every such test as a regression.
const (
	// MaxFlakeRechecks is the most re-runs a grading may ask for (--flake-rechecks, the API's
	// spec.grading.flakeRechecks).
	MaxFlakeRechecks = 10
	// maxRecheckedRegressions: a visible run with more regressions than this is not re-checked
	// and they all stand. Flakes are a test or a few; a patch that breaks more is no flake,
	// and re-running many tests would spend the verifier's time on it.
	maxRecheckedRegressions = 20
	// maxRecheckCommand bounds the re-run's command: sh -c takes it as one argument, which
	// Linux caps at 128 KiB, and a command that cannot be started would fail the grading.
	maxRecheckCommand = 32 << 10
)

// checkFlakeRechecks checks the re-check's options.
func checkFlakeRechecks(o Options) error {
	switch {
	case o.FlakeRechecks < 0 || o.FlakeRechecks > MaxFlakeRechecks:
		return fmt.Errorf("--flake-rechecks is %d: give the number of re-runs of a visible regression, 0 (off) to %d", o.FlakeRechecks, MaxFlakeRechecks)
	case o.FlakeRechecks > 0 && o.Oracle:
		return errors.New("--flake-rechecks re-checks an agent's regressions; --oracle grades the pristine tree, whose regressions are the environment's: leave one out")
	}
	return nil
}

// RecheckReport is eval.json's flake_recheck: what the re-check ran and cleared.
type RecheckReport struct {
	// Rechecks is R, the most re-runs asked for.
	Rechecks int `json:"rechecks"`
	// Regressions are the visible run's; Cleared those a re-run saw pass (Eval.Regressions
	// are the rest, which count).
	Regressions []string     `json:"regressions"`
	Cleared     []string     `json:"cleared"`
	Runs        []RecheckRun `json:"runs"`
	// Stopped says why fewer than R re-runs ran while some regression still stood: the
	// bundle cannot run the tests alone, too many regressed, no time was left, or a re-run
	// produced no results to read. What was not cleared by then stands.
	Stopped string `json:"stopped,omitempty"`
}

// RecheckRun is one re-run: the tests still regressed before it, and those it saw pass.
type RecheckRun struct {
	Tests  []string     `json:"tests"`
	Passed []string     `json:"passed"`
	Suite  *SuiteReport `json:"suite"`
}

// afterRerun splits the tests a re-run was given into those it reports passed (cleared) and
// the rest, which still stand: failed, errored, skipped or not reported at all. Tests the run
// reports beyond those it was given do not count.
func afterRerun(tests []string, res testresults.Results) (stand, cleared []string) {
	stand = Regressions(tests, res)
	for _, id := range tests {
		if !slices.Contains(stand, id) {
			cleared = append(cleared, id)
		}
	}
	slices.Sort(cleared)
	return stand, cleared
}

// recheckable says why the regressions cannot be re-checked with the bundle's bug_tests
// command, or "" when they can: the command's results must name tests as the visible suite's
// do, and {files} and {names} can be made only from pytest's ids.
func recheckable(b *Bundle, regressions []string) string {
	template := b.BugTests.Command.Command
	switch {
	case len(regressions) > maxRecheckedRegressions:
		return fmt.Sprintf("%d regressions, more than the %d a re-check re-runs: a patch that breaks that many is not flaky", len(regressions), maxRecheckedRegressions)
	case b.BugTests.Format != b.Visible.Format:
		return fmt.Sprintf("bug_tests reads %s results and the visible suite %s: their test ids do not compare", b.BugTests.Format, b.Visible.Format)
	case b.BugTests.Format != testresults.FormatPytest && (strings.Contains(template, "{files}") || strings.Contains(template, "{names}")):
		return fmt.Sprintf("bug_tests names its tests by {files} or {names}, which only pytest's ids give (format %s): use {tests}", b.BugTests.Format)
	}
	return ""
}

// pytestTargets are the files and the test functions of pytest ids (path::[Class::]name[param]),
// for bug_tests' {files} and {names}.
func pytestTargets(ids []string) (files, names []string) {
	for _, id := range ids {
		file, rest, ok := strings.Cut(id, "::")
		if !ok {
			continue
		}
		files = append(files, file)
		name := rest
		if i := strings.IndexByte(name, '['); i >= 0 { // a parameter id may hold "::"
			name = name[:i]
		}
		if i := strings.LastIndex(name, "::"); i >= 0 {
			name = name[i+2:]
		}
		if name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(files)
	slices.Sort(names)
	return slices.Compact(files), slices.Compact(names)
}

// recheckCommand is the bug_tests command that re-runs tests alone, or why there is none.
func (g *grader) recheckCommand(tests []string) (string, string) {
	template := g.bundle.BugTests.Command.Command
	var files, names []string
	if g.bundle.BugTests.Format == testresults.FormatPytest {
		files, names = pytestTargets(tests)
		files = targetFiles(g.repo.Dir, files, testresults.FormatPytest)
	}
	if strings.Contains(template, "{files}") && len(files) == 0 {
		return "", "none of the regressed tests' files is in the tree to run"
	}
	command := bugCommand(template, tests, files, names)
	if len(command) > maxRecheckCommand {
		return "", fmt.Sprintf("the re-run's command would be %d bytes, more than %d", len(command), maxRecheckCommand)
	}
	return command, ""
}

// recheck re-runs the visible run's regressions (g.ev.Regressions) as Options.FlakeRechecks
// says, after every scored step, so that it can take no time from them and a hang in it
// needs no attribution; g.ev.Regressions becomes those that stand. The agent's code runs
// again: each re-run is a step like the others (the guard, the test identity, the result
// channel, the limits), and anything that keeps it from showing a pass leaves the regression
// standing. An error is the grader's, as in any step.
func (g *grader) recheck(ctx context.Context) error {
	rep := &RecheckReport{Rechecks: g.o.FlakeRechecks, Regressions: slices.Clone(g.ev.Regressions), Cleared: []string{}, Runs: []RecheckRun{}}
	g.ev.FlakeRecheck = rep
	stand := g.ev.Regressions
	if len(stand) == 0 {
		return nil
	}
	rep.Stopped = recheckable(g.bundle, stand)
	for run := 1; run <= g.o.FlakeRechecks && len(stand) > 0 && rep.Stopped == ""; run++ {
		if g.limit(g.bundle.BugTests.TimeoutSec, defaultBugTimeout) <= 0 {
			rep.Stopped = fmt.Sprintf("no time was left before the deadline for re-run %d", run)
			break
		}
		if err := g.prepare("the flake re-check"); err != nil {
			return err
		}
		if err := dropBytecodeCaches(g.repo.Dir); err != nil {
			return err
		}
		// After the guard: {files} are those the tree then holds.
		command, why := g.recheckCommand(stand)
		if why != "" {
			rep.Stopped = why
			break
		}
		suite, res, err := g.suite(ctx, g.bundle.BugTests, command, defaultBugTimeout)
		if err != nil {
			return err
		}
		r := RecheckRun{Tests: stand, Passed: []string{}, Suite: suite}
		if suite.ParseError != "" || suite.TimedOut {
			rep.Runs = append(rep.Runs, r)
			rep.Stopped = fmt.Sprintf("re-run %d %s", run, unmeasured(suite))
			break
		}
		var cleared []string
		stand, cleared = afterRerun(stand, res)
		r.Passed = append(r.Passed, cleared...)
		rep.Runs = append(rep.Runs, r)
		rep.Cleared = append(rep.Cleared, cleared...)
		fmt.Fprintf(g.o.Log, "[grader] flake re-check %d of %d: %d passed, %d still regressed\n", run, g.o.FlakeRechecks, len(cleared), len(stand))
	}
	if rep.Stopped != "" {
		fmt.Fprintf(g.o.Log, "[grader] flake re-check stopped, %d regressions stand: %s\n", len(stand), rep.Stopped)
	}
	slices.Sort(rep.Cleared)
	g.ev.Regressions = orEmpty(stand)
	return nil
}

// unmeasured says why a re-run showed nothing.
func unmeasured(s *SuiteReport) string {
	if s.TimedOut {
		return fmt.Sprintf("ran past its limit of %.0fs", s.LimitSec)
	}
	return "produced no results to read: " + s.ParseError
}
