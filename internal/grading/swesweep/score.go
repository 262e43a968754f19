package swesweep

import (
	"sort"

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

// Reward is reward.json with SWE-sweep's keys; every value is a number.
type Reward struct {
	Reward            float64 `json:"reward"`
	NSubtasks         int     `json:"n_subtasks"`
	NResolved         int     `json:"n_resolved"`
	NPartial          int     `json:"n_partial"`
	VisibleOK         int     `json:"visible_ok"`
	NRegressions      int     `json:"n_regressions"`
	AgentPatchApplied int     `json:"agent_patch_applied"`
	AgentBuildOK      int     `json:"agent_build_ok"`
	GraderFailed      int     `json:"grader_failed"`
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

// GraderFailedReward is what a grader that crashed reports: not measured, never a 0.
var GraderFailedReward = map[string]float64{"reward": 0, "grader_failed": 1}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
