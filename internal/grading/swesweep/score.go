package swesweep

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// BugOutcome is a bug's targeted run, judged as SWE-sweep judges it: over every test the run
// reported, not only the fail-to-pass ones. Passed and Failed (FAILED or ERROR) are the whole
// run's; SKIPPED and XFAIL count as neither. A fail-to-pass test the run did not report is
// Missing and counts as neither passed nor failed.
type BugOutcome struct {
	Passed    []string `json:"passed"`
	Failed    []string `json:"failed"`
	Other     []string `json:"other,omitempty"`
	F2PPassed []string `json:"f2p_passed"`
	P2PPassed []string `json:"p2p_passed"`
	F2PFailed []string `json:"f2p_failed"`
	P2PFailed []string `json:"p2p_failed"`
	Missing   []string `json:"missing,omitempty"`
	// F2PSkipped are fail-to-pass tests the run skipped (or marked xfail).
	F2PSkipped []string `json:"f2p_skipped,omitempty"`
}

// ProcessLevelFailure in a bug's fail_to_pass says, as in SWE-sweep, that its reproduction
// could tell only which targeted run failed, not which test: every test of the run that passed
// or failed then counts as fail-to-pass. It names no test.
const ProcessLevelFailure = "__process_level_failure__"

// OutcomeOf judges a bug's targeted run res; failToPass splits its tests into the bug's own
// (f2p) and the others the run reported (p2p).
func OutcomeOf(failToPass []string, res testresults.Results) BugOutcome {
	f2p := map[string]bool{}
	for _, id := range failToPass {
		f2p[id] = true
	}
	processLevel := f2p[ProcessLevelFailure]
	if processLevel {
		delete(f2p, ProcessLevelFailure)
		for id, st := range res {
			if st == testresults.Passed || st == testresults.Failed || st == testresults.Error {
				f2p[id] = true
			}
		}
	}
	o := BugOutcome{Passed: []string{}, Failed: []string{}, F2PPassed: []string{}, P2PPassed: []string{}, F2PFailed: []string{}, P2PFailed: []string{}}
	for _, id := range slices.Sorted(maps.Keys(res)) {
		switch st := res[id]; st {
		case testresults.Passed:
			o.Passed = append(o.Passed, id)
			if f2p[id] {
				o.F2PPassed = append(o.F2PPassed, id)
			} else {
				o.P2PPassed = append(o.P2PPassed, id)
			}
		case testresults.Failed, testresults.Error:
			o.Failed = append(o.Failed, id)
			if f2p[id] {
				o.F2PFailed = append(o.F2PFailed, id)
			} else {
				o.P2PFailed = append(o.P2PFailed, id)
			}
		default:
			o.Other = append(o.Other, id)
			if f2p[id] {
				o.F2PSkipped = append(o.F2PSkipped, id)
			}
		}
	}
	for _, id := range failToPass {
		if _, ok := res[id]; !ok && id != ProcessLevelFailure {
			o.Missing = append(o.Missing, id)
		}
	}
	sort.Strings(o.Missing)
	return o
}

// Resolved: nothing in the targeted run failed, and the bug's own tests show the fix: one of
// its fail-to-pass tests passed and none was skipped. SWE-sweep asks only that something in the
// run passed; then code under test that skips or renames the hidden tests resolves a bug it did
// not fix, while the run's other tests pass (docs/security.md, docs/task-format.md).
func (o BugOutcome) Resolved() bool {
	return len(o.Failed) == 0 && len(o.F2PPassed) > 0 && len(o.F2PSkipped) == 0
}

// Partial: not resolved, but some fail-to-pass test passed and no other test of the run failed.
func (o BugOutcome) Partial() bool {
	return !o.Resolved() && len(o.P2PFailed) == 0 && len(o.F2PPassed) > 0
}

// Regressions are the base-passing tests that do not pass now, missing ones included.
func Regressions(baseTests []string, res testresults.Results) []string {
	var out []string
	for _, id := range baseTests {
		if res[id] != testresults.Passed {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Reward is the grader's result with SWE-sweep's nine keys (Result gives reward.json's form).
type Reward struct {
	Reward            float64
	NSubtasks         int
	NResolved         int
	NPartial          int
	VisibleOK         int
	NRegressions      int
	AgentPatchApplied int
	AgentBuildOK      int
	GraderFailed      int
	// Rechecked: the flake re-check was on, so the result carries RegressionsCleared, the
	// regressions it cleared (reward.KeyRegressionsCleared); off, the result has SWE-sweep's
	// nine keys only.
	Rechecked          bool
	RegressionsCleared int
}

// Result is the reward as the verifier's result: all nine keys, every one a number, and the
// re-check's figure when it was on.
func (r Reward) Result() reward.Result {
	res := reward.Result{
		reward.KeyReward:       r.Reward,
		reward.KeySubtasks:     float64(r.NSubtasks),
		reward.KeyResolved:     float64(r.NResolved),
		reward.KeyPartial:      float64(r.NPartial),
		reward.KeyVisibleOK:    float64(r.VisibleOK),
		reward.KeyRegressions:  float64(r.NRegressions),
		reward.KeyPatchApplied: float64(r.AgentPatchApplied),
		reward.KeyBuildOK:      float64(r.AgentBuildOK),
		reward.KeyGraderFailed: float64(r.GraderFailed),
	}
	if r.Rechecked {
		res[reward.KeyRegressionsCleared] = float64(r.RegressionsCleared)
	}
	return res
}

// Visible is what the visible suite showed: Measured is false when it produced no results to
// read (SWE-sweep: not visible_ok, with no regressions listed).
type Visible struct {
	Measured    bool
	Regressions int
}

// Score computes the reward of one trial as SWE-sweep does: a failed build grades no bug
// (n_subtasks 0); otherwise the reward is 0 when the visible suite was not measured or
// anything regressed, else the fraction of bugs resolved, rounded to 4 places.
func Score(nBugs int, outcomes []BugOutcome, visible Visible, patchApplied, buildOK bool) Reward {
	// A failed build still counts its bugs, unresolved. SWE-sweep writes n_subtasks 0 there,
	// which takes the task out of the score's denominator: an agent would break the build of a
	// task it cannot fix to raise its score (docs/security.md, attribution).
	r := Reward{NSubtasks: nBugs, AgentPatchApplied: b2i(patchApplied), AgentBuildOK: b2i(buildOK)}
	if !buildOK {
		return r
	}
	r.NRegressions = visible.Regressions
	r.VisibleOK = b2i(visible.Measured && visible.Regressions == 0)
	for _, o := range outcomes {
		r.NResolved += b2i(o.Resolved())
		r.NPartial += b2i(o.Partial())
	}
	if r.VisibleOK == 1 && nBugs > 0 {
		r.Reward = round4(float64(r.NResolved) / float64(nBugs))
	}
	return r
}

// round4 rounds to 4 decimal places as Python's round(x, 4) does: the nearest 4-place decimal
// to the exact binary value, ties to even.
func round4(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	if err != nil { // FormatFloat's output always parses
		return x
	}
	return v
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// withoutIgnored drops from a bug's targeted run the tests base_tests declares unreliable,
// except the bug's own fail-to-pass tests, as SWE-sweep does: such a test cannot fail a bug,
// nor pass it. It returns the run that is judged and the ids dropped, sorted.
func withoutIgnored(res testresults.Results, ignored map[string]bool, failToPass []string) (testresults.Results, []string) {
	if len(ignored) == 0 {
		return res, nil
	}
	own := map[string]bool{}
	for _, id := range failToPass {
		own[id] = true
	}
	kept := testresults.Results{}
	var dropped []string
	for id, st := range res {
		if ignored[id] && !own[id] {
			dropped = append(dropped, id)
			continue
		}
		kept[id] = st
	}
	sort.Strings(dropped)
	return kept, dropped
}
