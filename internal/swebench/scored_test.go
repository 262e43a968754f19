package swebench

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

func TestScoredResult(t *testing.T) {
	resolved := InstanceReport{InstanceID: "a", Resolved: true, Resolution: ResolvedFull, PatchSuccessfullyApplied: true, TestsStatus: &TestsStatus{}}
	invalid := InstanceReport{InstanceID: "a", Resolution: ResolvedNo, Error: "invalid run: the test command exited 1 but no test failed or errored"}
	base := func(resolvedN, errorN, applied float64) reward.Result {
		return reward.Result{reward.KeyReward: resolvedN, reward.KeySubtasks: 1, reward.KeyResolved: resolvedN, reward.KeyVisibleOK: 1,
			reward.KeyGraderFailed: 0, reward.KeyPatchApplied: applied, RewardError: errorN}
	}
	with := func(r reward.Result, extra reward.Result) reward.Result {
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	differ := reward.Result{RewardOfficialResolved: 1, RewardOfficialError: 0, RewardHardenedResolved: 0, RewardHardenedError: 1, RewardVerdictsDiffer: 1}
	tests := map[string]struct {
		hardened, official InstanceReport
		scored             string
		want               reward.Result
		wantReport         bool
	}{
		"the hardened verdict is scored by default": {
			hardened: invalid, official: resolved, scored: ScoreHardened,
			want: with(base(0, 1, 0), with(reward.Result{RewardScoresOfficial: 0}, differ)),
		},
		"the official verdict when the campaign scores it": {
			hardened: invalid, official: resolved, scored: ScoreOfficial,
			want:       with(base(1, 0, 1), with(reward.Result{RewardScoresOfficial: 1}, differ)),
			wantReport: true,
		},
		"verdicts that agree": {
			hardened: resolved, official: resolved, scored: ScoreHardened,
			want: with(base(1, 0, 1), reward.Result{RewardOfficialResolved: 1, RewardOfficialError: 0, RewardHardenedResolved: 1,
				RewardHardenedError: 0, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0}),
			wantReport: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, report := scoredResult(tc.hardened, tc.official, tc.scored)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reward (-want +got):\n%s", diff)
			}
			if (report != nil) != tc.wantReport {
				t.Errorf("report.json written: %v, want %v", report != nil, tc.wantReport)
			}
		})
	}
}

func TestVerdictDifference(t *testing.T) {
	ts := &TestsStatus{FailToPass: TestOutcomes{Failure: []string{"t.py::a"}}}
	tests := map[string]struct {
		hardened, official InstanceReport
		want               string
	}{
		"agree": {
			hardened: InstanceReport{Resolved: true}, official: InstanceReport{Resolved: true},
		},
		"both unresolved for different reasons still agree": {
			hardened: InstanceReport{LogProblem: "x"}, official: InstanceReport{TestsStatus: ts, Resolution: ResolvedNo},
		},
		"a forged exit code the hardened verdict saw through": {
			hardened: InstanceReport{Error: "invalid run: the test command exited 1 but no test failed or errored"},
			official: InstanceReport{Resolved: true},
			want:     "hardened verdict error (invalid run: the test command exited 1 but no test failed or errored), official verdict resolved",
		},
		"an xfail(run=False) that only the official verdict passes": {
			hardened: InstanceReport{TestsStatus: ts, Resolution: ResolvedNo},
			official: InstanceReport{Resolved: true},
			want:     "hardened verdict unresolved (no resolution: t.py::a failed), official verdict resolved",
		},
		"5 rejects the log, the hardened verdict resolves": {
			hardened: InstanceReport{Resolved: true},
			official: InstanceReport{LogProblem: "invalid run: no test results and no sign that the test suite ran"},
			want:     "hardened verdict resolved, official verdict unresolved (invalid run: no test results and no sign that the test suite ran)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := verdictDifference(tc.hardened, tc.official); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
