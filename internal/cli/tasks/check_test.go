package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
)

// checkRows is the verdict of tasks check: per bug the oracle must resolve it and nop must not;
// a reward-only task is one line; a trial that was not measured says why.
func TestCheckRows(t *testing.T) {
	ok := string(evalv1.TrialSucceeded)
	bug := func(id string, resolved bool) eval.BugOutput { return eval.BugOutput{ID: id, Resolved: resolved} }
	oracle := map[string]eval.TrialOutput{
		"bugs":   {Name: "o-bugs", Phase: ok, Bugs: []eval.BugOutput{bug("b1", true), bug("b2", true), bug("b3", false), bug("b4", true)}},
		"reward": {Name: "o-reward", Phase: ok, Rewards: map[string]string{"reward": "1.0000"}},
		"weak":   {Name: "o-weak", Phase: ok, Rewards: map[string]string{"reward": "0.5000"}},
		"lost":   {Name: "o-lost", Phase: string(evalv1.TrialError), Reason: "ImagePullFailed"},
		"unread": {Name: "o-unread", Phase: ok, EvalError: "trial o-unread: secret ns/o-unread-results key eval.json: eval.json is not SWE-sweep's"},
	}
	nop := map[string]eval.TrialOutput{
		"bugs":   {Name: "n-bugs", Phase: ok, Bugs: []eval.BugOutput{bug("b1", false), bug("b2", true), bug("b3", false)}},
		"reward": {Name: "n-reward", Phase: ok, Rewards: map[string]string{"reward": "1.0000"}},
		"weak":   {Name: "n-weak", Phase: ok, Rewards: map[string]string{"reward": "0.0000"}},
		"unread": {Name: "n-unread", Phase: ok, Bugs: []eval.BugOutput{bug("b1", false)}},
	}
	got := checkRows([]string{"bugs", "reward", "weak", "lost", "unread"}, oracle, nop)
	want := []checkRow{
		{Task: "bugs", Bug: "b1", Oracle: "resolved", Nop: "unresolved", OK: true, Verdict: "ok"},
		{Task: "bugs", Bug: "b2", Oracle: "resolved", Nop: "resolved", Verdict: "nop resolves it: its fail-to-pass tests pass without the fix"},
		{Task: "bugs", Bug: "b3", Oracle: "unresolved", Nop: "unresolved", Verdict: "the oracle does not resolve it: check its fix and fail-to-pass tests"},
		{Task: "bugs", Bug: "b4", Oracle: "resolved", Nop: "not graded", Verdict: "nop's grading has no such bug: regrade"},
		{Task: "reward", Bug: "-", Oracle: "reward 1.0000", Nop: "reward 1.0000", Verdict: "nop scores 1: the tests pass without any change"},
		{Task: "weak", Bug: "-", Oracle: "reward 0.5000", Nop: "reward 0.0000", Verdict: "the oracle does not score 1: its solution is wrong or the tests are"},
		{Task: "lost", Bug: "-", Oracle: "Error", Nop: "-", Verdict: "oracle trial o-lost ended Error (ImagePullFailed); nop trial missing"},
		{Task: "unread", Bug: "-", Oracle: ok, Nop: ok, Verdict: "trial o-unread: secret ns/o-unread-results key eval.json: eval.json is not SWE-sweep's"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checkRows (-want +got):\n%s", diff)
	}
}
