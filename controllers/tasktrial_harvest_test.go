package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// TestScoreStatus is the trial half of the reward-only regression (the campaign half is in
// internal/scoring): a 5-bug task whose verifier wrote reward 1 alone used to show 5/5 on its
// TaskTrial while its campaign counted it as one bug. Both now follow reward.Outcome.
func TestScoreStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result reward.Result
		want   evalv1.TaskTrialStatus
	}{
		{name: "SWE-sweep result",
			result: reward.Result{reward.KeyReward: 0.4, reward.KeySubtasks: 10, reward.KeyResolved: 4, reward.KeyVisibleOK: 1, reward.KeyGraderFailed: 0},
			want: evalv1.TaskTrialStatus{Score: "0.4000", BugsTotal: 10, BugsResolved: 4,
				Rewards: map[string]string{"reward": "0.4000", "n_subtasks": "10.0000", "n_resolved": "4.0000", "visible_ok": "1.0000", "grader_failed": "0.0000"}}},
		{name: "regressed",
			result: reward.Result{reward.KeyReward: 0, reward.KeySubtasks: 10, reward.KeyResolved: 8, reward.KeyVisibleOK: 0},
			want: evalv1.TaskTrialStatus{Score: "0.0000", BugsTotal: 10, BugsResolved: 8, Regressed: true,
				Rewards: map[string]string{"reward": "0.0000", "n_subtasks": "10.0000", "n_resolved": "8.0000", "visible_ok": "0.0000"}}},
		{name: "reward-only task with 5 declared bugs: its reward, no bug counts",
			result: reward.Result{reward.KeyReward: 1},
			want:   evalv1.TaskTrialStatus{Score: "1.0000", Rewards: map[string]string{"reward": "1.0000"}}},
		{name: "visible_ok without n_subtasks is not read",
			result: reward.Result{reward.KeyReward: 0, reward.KeyVisibleOK: 0},
			want:   evalv1.TaskTrialStatus{Score: "0.0000", Rewards: map[string]string{"reward": "0.0000", "visible_ok": "0.0000"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the old rule wrote for the 5-bug reward-only task: every field is rewritten.
			st := evalv1.TaskTrialStatus{BugsTotal: 5, BugsResolved: 5, Regressed: true}
			scoreStatus(&st, tc.result)
			if d := cmp.Diff(tc.want, st); d != "" {
				t.Errorf("status (-want +got):\n%s", d)
			}
		})
	}
}
