package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

// validate reads N trials per agent and task into one report per bug: k/N per agent, the
// regressions and the tests whose outcome differed; a task graded whole is one report; a
// trial not measured is a problem and counts in no figure.
func TestValidate(t *testing.T) {
	ok := string(evalv1.TrialSucceeded)
	pass, fail := map[string]string{"t::f": "passed"}, map[string]string{"t::f": "failed"}
	bug := func(id string, resolved bool, tests map[string]string) eval.BugOutput {
		return eval.BugOutput{ID: id, Resolved: resolved, Tests: tests}
	}
	trial := func(name string, visible map[string]string, regressions []string, bugs ...eval.BugOutput) eval.TrialOutput {
		return eval.TrialOutput{Name: name, Phase: ok, Bugs: bugs, VisibleTests: visible, Regressions: regressions}
	}
	visible := map[string]string{"t::v": "passed"}
	oracle := map[string][]eval.TrialOutput{
		"kit": {
			trial("o1", visible, nil, bug("valid", true, pass), bug("trivial", true, pass), bug("flaky", true, pass)),
			trial("o2", visible, nil, bug("valid", true, pass), bug("trivial", true, pass), bug("flaky", false, fail)),
			trial("o3", visible, nil, bug("valid", true, pass), bug("trivial", true, pass), bug("flaky", true, pass)),
		},
		"reward": {
			{Name: "o-r1", Phase: ok, Rewards: map[string]string{"reward": "1.0000"}, InstanceTests: pass},
			{Name: "o-r2", Phase: ok, Rewards: map[string]string{"reward": "1.0000"}, InstanceTests: pass},
			{Name: "o-r3", Phase: string(evalv1.TrialError), Reason: "ImagePullFailed"},
		},
		"regress": {
			trial("o-g1", visible, []string{"t::v"}, bug("b1", true, pass)),
			{Name: "o-g2", Phase: ok, Bugs: []eval.BugOutput{}}, // a failed build grades no bug
			{Name: "o-g3", Phase: ok, EvalError: "trial o-g3: secret ns/o-g3-results key eval.json: eval.json is not SWE-sweep's"},
		},
	}
	nop := map[string][]eval.TrialOutput{
		"kit": {
			trial("n1", visible, nil, bug("valid", false, fail), bug("trivial", true, pass), bug("flaky", false, fail)),
			trial("n2", visible, nil, bug("valid", false, fail), bug("trivial", false, fail), bug("flaky", false, fail)),
			trial("n3", map[string]string{"t::v": "failed"}, nil, bug("valid", false, fail), bug("trivial", true, pass), bug("flaky", false, fail)),
		},
		"reward": {
			{Name: "n-r1", Phase: ok, Rewards: map[string]string{"reward": "0.0000"}, InstanceTests: fail},
			{Name: "n-r2", Phase: ok, Rewards: map[string]string{"reward": "0.0000"}, InstanceTests: fail},
		},
		"regress": {trial("n-g1", visible, nil, bug("b1", false, fail))},
	}
	got := validate([]string{"kit", "reward", "regress"}, oracle, nop, 3, 3)
	three := func(resolved int) Count { return Count{Resolved: resolved, Measured: 3, Runs: 3} }
	visibleFlaky := TestRuns{Test: "t::v", Agent: "nop", Suite: SuiteVisible, Outcomes: map[string]int{"passed": 2, "failed": 1}}
	want := []bugReport{
		{Task: "kit", Bug: "valid", Verdict: Flaky, Oracle: three(3), Nop: three(0), Regressions: []TestRuns{}, Flaky: []TestRuns{visibleFlaky},
			Detail: "oracle resolved 3/3, nop 0/3, flaky: t::v"},
		{Task: "kit", Bug: "trivial", Verdict: Flaky, Oracle: three(3), Nop: three(2), Regressions: []TestRuns{},
			Flaky:  []TestRuns{{Test: "t::f", Agent: "nop", Suite: SuiteBug, Outcomes: map[string]int{"passed": 2, "failed": 1}}, visibleFlaky},
			Detail: "oracle resolved 3/3, nop 2/3, flaky: t::f, t::v"},
		{Task: "kit", Bug: "flaky", Verdict: Flaky, Oracle: three(2), Nop: three(0), Regressions: []TestRuns{},
			Flaky:  []TestRuns{{Test: "t::f", Agent: "oracle", Suite: SuiteBug, Outcomes: map[string]int{"passed": 2, "failed": 1}}, visibleFlaky},
			Detail: "oracle resolved 2/3, nop 0/3, flaky: t::f, t::v"},
		{Task: "reward", Verdict: Unmeasured, Oracle: Count{Resolved: 2, Measured: 2, Runs: 3}, Nop: Count{Measured: 2, Runs: 3},
			Regressions: []TestRuns{}, Flaky: []TestRuns{},
			Problems: []string{"oracle trial o-r3 ended Error (ImagePullFailed)", "nop: 1 of 3 trials missing"},
			Detail:   "oracle resolved 2/2 (2 of 3 measured), nop 0/2 (2 of 3 measured)"},
		{Task: "regress", Bug: "b1", Verdict: Broken, Oracle: Count{Resolved: 1, Measured: 2, Runs: 3}, Nop: Count{Measured: 1, Runs: 3},
			Regressions: []TestRuns{{Test: "t::v", Agent: "oracle", Suite: SuiteVisible, Runs: 1}}, Flaky: []TestRuns{},
			Problems: []string{"trial o-g3: secret ns/o-g3-results key eval.json: eval.json is not SWE-sweep's", "nop: 2 of 3 trials missing"},
			Detail:   "oracle resolved 1/2 (2 of 3 measured), nop 0/1 (1 of 3 measured), regressions: t::v (oracle 1)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("validate (-want +got):\n%s", diff)
	}
	wantEntries := []exclusions.Entry{
		{Task: "kit", Bug: "valid", Reason: exclusions.Flaky, Detail: want[0].Detail},
		{Task: "kit", Bug: "trivial", Reason: exclusions.Flaky, Detail: want[1].Detail},
		{Task: "kit", Bug: "flaky", Reason: exclusions.Flaky, Detail: want[2].Detail},
		{Task: "regress", Bug: "b1", Reason: exclusions.Broken, Detail: want[4].Detail},
	}
	if diff := cmp.Diff(wantEntries, exclusionEntries(got)); diff != "" {
		t.Errorf("exclusionEntries (-want +got):\n%s", diff)
	}
}

// flakykit's three bugs over five runs, as its seeded test makes them: the verdicts the e2e
// and tasks/check.sh expect.
func TestValidateFlakykit(t *testing.T) {
	ok := string(evalv1.TrialSucceeded)
	var oracle, nop []eval.TrialOutput
	for attempt := range 5 {
		flaky := map[string]string{"ties": "passed", "under_load": "passed"}
		if attempt%2 == 1 {
			flaky["under_load"] = "failed"
		}
		oracle = append(oracle, eval.TrialOutput{Name: "o", Phase: ok, Bugs: []eval.BugOutput{
			{ID: "median-even", Resolved: true, Tests: map[string]string{"even": "passed"}},
			{ID: "mean-empty", Resolved: true, Tests: map[string]string{"empty": "passed"}},
			{ID: "mode-ties", Resolved: attempt%2 == 0, Tests: flaky},
		}})
		nop = append(nop, eval.TrialOutput{Name: "n", Phase: ok, Bugs: []eval.BugOutput{
			{ID: "median-even", Tests: map[string]string{"even": "failed"}},
			{ID: "mean-empty", Resolved: true, Tests: map[string]string{"empty": "passed"}},
			{ID: "mode-ties", Tests: map[string]string{"ties": "failed", "under_load": "failed"}},
		}})
	}
	got := map[string]Verdict{}
	for _, b := range validate([]string{"flakykit"}, map[string][]eval.TrialOutput{"flakykit": oracle}, map[string][]eval.TrialOutput{"flakykit": nop}, 5, 5) {
		got[b.Bug] = b.Verdict
	}
	if diff := cmp.Diff(map[string]Verdict{"median-even": Valid, "mean-empty": Trivial, "mode-ties": Flaky}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
