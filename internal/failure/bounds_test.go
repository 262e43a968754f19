package failure

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

func TestOutOfBounds(t *testing.T) {
	sweep := func(subtasks, resolved, rewardValue float64) reward.Result {
		return reward.Result{reward.KeyReward: rewardValue, reward.KeySubtasks: subtasks, reward.KeyResolved: resolved,
			reward.KeyPartial: 0, reward.KeyVisibleOK: 1, reward.KeyRegressions: 0, reward.KeyPatchApplied: 1,
			reward.KeyBuildOK: 1, reward.KeyGraderFailed: 0}
	}
	verdict := func(msg string) Verdict {
		return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardOutOfBounds,
			Message: "the verifier's result is out of bounds: " + msg + "; the trial is not scored (its results are kept): fix the grader or tests/test.sh"}
	}
	cases := map[string]struct {
		result   reward.Result
		declared int
		want     Verdict
		wantOK   bool
	}{
		"within bounds":     {result: sweep(2, 1, 0.5), declared: 2},
		"reward-only":       {result: reward.Result{reward.KeyReward: 1}, declared: 5},
		"n_resolved 1000":   {result: sweep(2, 1000, 1), declared: 2, wantOK: true, want: verdict("n_resolved is 1000, above n_subtasks (2)")},
		"n_subtasks forged": {result: sweep(1000, 1000, 1), declared: 40, wantOK: true, want: verdict("n_subtasks is 1000, not the trial's 40 declared bugs")},
		"reward 25":         {result: reward.Result{reward.KeyReward: 25}, wantOK: true, want: verdict("reward is 25, outside [0, 1]")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := OutOfBounds(tc.result, tc.declared)
			if ok != tc.wantOK {
				t.Fatalf("OutOfBounds ok = %v, want %v (%+v)", ok, tc.wantOK, got)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("OutOfBounds (-want +got):\n%s", d)
			}
		})
	}
}
