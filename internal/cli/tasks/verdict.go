package tasks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

// Verdict is what a validation run concludes of one bug (or of a task graded whole).
type Verdict string

// The verdicts; broken, trivial and flaky are the exclusion list's reasons of the same name.
const (
	Valid   Verdict = "valid"
	Broken          = Verdict(exclusions.Broken)
	Trivial         = Verdict(exclusions.Trivial)
	Flaky           = Verdict(exclusions.Flaky)
	// Unmeasured: some run was not measured (its trial failed on infrastructure, or its
	// eval.json could not be read) and the measured ones show nothing wrong.
	Unmeasured Verdict = "unmeasured"
)

// Excluded says whether the verdict puts the bug on the exclusion list.
func (v Verdict) Excluded() bool { return v == Broken || v == Trivial || v == Flaky }

// Suites a test outcome comes from.
const (
	SuiteVisible  = "visible"  // the visible suite of SWE-sweep's eval.json, run once per trial
	SuiteBug      = "bug"      // the bug's own targeted run
	SuiteInstance = "instance" // a SWE-bench instance's FAIL_TO_PASS and PASS_TO_PASS tests
)

// Count is how many of an agent's runs resolved the bug: of those measured, of those asked.
type Count struct {
	Resolved int `json:"resolved"`
	Measured int `json:"measured"`
	Runs     int `json:"runs"`
}

func (c Count) String() string {
	if c.Measured == c.Runs {
		return fmt.Sprintf("%d/%d", c.Resolved, c.Runs)
	}
	return fmt.Sprintf("%d/%d (%d of %d measured)", c.Resolved, c.Measured, c.Measured, c.Runs)
}

// TestRuns is one test as an agent's runs saw it: Outcomes counts the runs by outcome
// ("passed": 3, "failed": 2) for a flaky test; Runs is how many runs it regressed in.
type TestRuns struct {
	Test     string         `json:"test"`
	Agent    string         `json:"agent"`
	Suite    string         `json:"suite"`
	Outcomes map[string]int `json:"outcomes,omitempty"`
	Runs     int            `json:"runs,omitempty"`
}

// Evidence is what the oracle's and nop's runs showed of one bug.
type Evidence struct {
	Oracle, Nop Count
	// Regressions are the visible tests that passed at the base and did not in some run.
	Regressions []TestRuns
	// Flaky are the tests whose outcome differed between runs of the same agent (the same
	// tree: the same patch on the same base).
	Flaky []TestRuns
}

// Decide is the verdict on the evidence, the first that holds of:
//   - flaky: a test's outcome differed between runs of the same tree. First, because it
//     explains an oracle that resolves the bug only sometimes (which would be broken) and a
//     nop that resolves it only sometimes (trivial): the test, not the fix, is at fault.
//   - broken: the oracle did not resolve it in every measured run, or a run regressed the
//     visible suite (with the oracle's patch the task then scores 0 for every agent; with
//     nop, the base tree itself fails tests that base_tests says pass).
//   - trivial: nop resolved it in some run: its fail-to-pass tests pass without a change.
//   - unmeasured: some run was not measured, so valid cannot be said.
//   - valid.
func Decide(e Evidence) Verdict {
	switch {
	case len(e.Flaky) > 0:
		return Flaky
	case e.Oracle.Resolved < e.Oracle.Measured || len(e.Regressions) > 0:
		return Broken
	case e.Nop.Resolved > 0:
		return Trivial
	case e.Oracle.Measured < e.Oracle.Runs || e.Nop.Measured < e.Nop.Runs || e.Oracle.Measured == 0:
		return Unmeasured
	}
	return Valid
}

// Detail is the evidence in one line, as the exclusion list's entries carry it: "oracle
// resolved 3/5, nop 0/5, flaky: tests/test_x.py::test_y".
func (e Evidence) Detail() string {
	parts := []string{"oracle resolved " + e.Oracle.String(), "nop " + e.Nop.String()}
	if len(e.Flaky) > 0 {
		parts = append(parts, "flaky: "+strings.Join(testNames(e.Flaky), ", "))
	}
	if len(e.Regressions) > 0 {
		var rs []string
		for _, r := range e.Regressions {
			rs = append(rs, fmt.Sprintf("%s (%s %d)", r.Test, r.Agent, r.Runs))
		}
		parts = append(parts, "regressions: "+strings.Join(rs, ", "))
	}
	return strings.Join(parts, ", ")
}

// testNames are the tests, each once, in order.
func testNames(ts []TestRuns) []string {
	var names []string
	for _, t := range ts {
		if !slices.Contains(names, t.Test) {
			names = append(names, t.Test)
		}
	}
	return names
}

// outcomeTally counts, per suite and test, the runs of one agent by outcome.
type outcomeTally map[[2]string]map[string]int

func (t outcomeTally) add(suite string, tests map[string]string) {
	for test, outcome := range tests {
		key := [2]string{suite, test}
		if t[key] == nil {
			t[key] = map[string]int{}
		}
		t[key][outcome]++
	}
}

// flaky are the tests seen with more than one outcome, sorted by suite and test.
func (t outcomeTally) flaky(agent string) []TestRuns {
	var out []TestRuns
	for _, key := range slices.SortedFunc(maps.Keys(t), compareKeys) {
		if len(t[key]) > 1 {
			out = append(out, TestRuns{Test: key[1], Agent: agent, Suite: key[0], Outcomes: t[key]})
		}
	}
	return out
}

func compareKeys(a, b [2]string) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
}

// regressionTally counts the runs of one agent each visible test regressed in.
type regressionTally map[string]int

func (t regressionTally) runs(agent string) []TestRuns {
	var out []TestRuns
	for _, test := range slices.Sorted(maps.Keys(t)) {
		out = append(out, TestRuns{Test: test, Agent: agent, Suite: SuiteVisible, Runs: t[test]})
	}
	return out
}
