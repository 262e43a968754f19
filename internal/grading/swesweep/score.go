package swesweep

import (
	"sort"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// BugOutcome sorts a bug's fail-to-pass tests by their result. A missing test counts as
// failed; SKIPPED and XFAIL count as neither, so an all-skipped bug is not resolved.
type BugOutcome struct {
	Passed []string `json:"passed"`
	Failed []string `json:"failed"`
	Other  []string `json:"other,omitempty"`
}

// OutcomeOf reads the fail-to-pass tests' results.
func OutcomeOf(failToPass []string, res testresults.Results) BugOutcome {
	var o BugOutcome
	for _, id := range failToPass {
		switch st, ok := res[id]; {
		case !ok || st == testresults.Failed || st == testresults.Error:
			o.Failed = append(o.Failed, id)
		case st == testresults.Passed:
			o.Passed = append(o.Passed, id)
		default:
			o.Other = append(o.Other, id)
		}
	}
	return o
}

// Resolved: none failed and at least one passed.
func (o BugOutcome) Resolved() bool { return len(o.Failed) == 0 && len(o.Passed) > 0 }

// Partial: some passed, some failed.
func (o BugOutcome) Partial() bool { return len(o.Failed) > 0 && len(o.Passed) > 0 }

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
}

// Result is the reward as the verifier's result: all nine keys, every one a number.
func (r Reward) Result() reward.Result {
	return reward.Result{
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
}

// Score computes the reward of one trial: 0 when the build failed or anything regressed,
// else the fraction of bugs resolved.
func Score(nBugs int, outcomes []BugOutcome, regressions int, patchApplied, buildOK bool) Reward {
	r := Reward{NSubtasks: nBugs, NRegressions: regressions, AgentPatchApplied: b2i(patchApplied), AgentBuildOK: b2i(buildOK)}
	r.VisibleOK = b2i(buildOK && regressions == 0)
	for _, o := range outcomes {
		r.NResolved += b2i(o.Resolved())
		r.NPartial += b2i(o.Partial())
	}
	if r.VisibleOK == 1 && nBugs > 0 {
		r.Reward = float64(r.NResolved) / float64(nBugs)
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
