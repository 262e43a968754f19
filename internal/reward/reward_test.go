package reward

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      Result
		want    string
		wantErr string
	}{
		{name: "grader failed", in: GraderFailed(), want: `{"grader_failed":1,"reward":0}` + "\n"},
		{name: "evaluation failed: SWE-sweep's nine keys", in: EvaluationFailed(),
			want: `{"agent_build_ok":1,"agent_patch_applied":1,"grader_failed":1,"n_partial":0,"n_regressions":0,"n_resolved":0,"n_subtasks":0,"reward":0,"visible_ok":0}` + "\n"},
		{name: "keys sorted, numbers as Go prints them", in: Result{KeyReward: 0.2, KeySubtasks: 45, KeyResolved: 9, KeyVisibleOK: 1},
			want: `{"n_resolved":9,"n_subtasks":45,"reward":0.2,"visible_ok":1}` + "\n"},
		{name: "empty", in: Result{}, wantErr: "reward.json is empty"},
		{name: "NaN", in: Result{KeyReward: math.NaN()}, wantErr: `reward.json key "reward": NaN is not a finite number`},
		{name: "infinite", in: Result{KeyReward: math.Inf(1)}, wantErr: "is not a finite number"},
		{name: "long key", in: Result{strings.Repeat("k", 65): 1}, wantErr: "keys must have 1 to 64 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(tc.in)
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Encode = %q, want %q", got, tc.want)
			}
			back, err := ParseJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.in, back); d != "" {
				t.Errorf("ParseJSON(Encode(r)) (-want +got):\n%s", d)
			}
		})
	}
}

func TestGraderFailedIsFresh(t *testing.T) {
	for name, f := range map[string]func() Result{"GraderFailed": GraderFailed, "EvaluationFailed": EvaluationFailed} {
		r := f()
		r[KeyReward] = 1
		if f()[KeyReward] != 0 {
			t.Errorf("%s returns a shared map", name)
		}
	}
}

func TestOutcome(t *testing.T) {
	full := func(reward, subtasks, resolved, visibleOK, graderFailed float64) Result {
		return Result{KeyReward: reward, KeySubtasks: subtasks, KeyResolved: resolved, KeyVisibleOK: visibleOK,
			KeyPartial: 0, KeyRegressions: 0, KeyPatchApplied: 1, KeyBuildOK: 1, KeyGraderFailed: graderFailed}
	}
	for _, tc := range []struct {
		name string
		in   Result
		want Outcome
	}{
		{name: "scored", in: full(0.4, 10, 4, 1, 0), want: Outcome{Measured: true, Scored: true, Bugs: 10, Resolved: 4, Reward: 0.4}},
		{name: "scored without grader_failed", in: Result{KeyReward: 1, KeySubtasks: 1, KeyResolved: 1, KeyVisibleOK: 1},
			want: Outcome{Measured: true, Scored: true, Bugs: 1, Resolved: 1, Reward: 1}},
		{name: "regressed: its resolved bugs are still reported", in: full(0, 10, 8, 0, 0),
			want: Outcome{Measured: true, Scored: true, Bugs: 10, Resolved: 8, Regressed: true}},
		{name: "full result with grader_failed: not measured", in: full(0, 10, 0, 0, 1), want: Outcome{}},
		{name: "reward-only (reward.txt, 5-bug task): skipped, never 5/5 nor 1 bug", in: Result{KeyReward: 1},
			want: Outcome{Measured: true, Skipped: true, Reward: 1}},
		{name: "bare grader failure: not measured, though it lacks the scoring keys", in: GraderFailed(),
			want: Outcome{}},
		{name: "nine-key evaluation failure: not measured, though it has the scoring keys", in: EvaluationFailed(),
			want: Outcome{}},
		{name: "no visible_ok: skipped", in: Result{KeyReward: 0.5, KeySubtasks: 2, KeyResolved: 1},
			want: Outcome{Measured: true, Skipped: true, Reward: 0.5}},
		{name: "no n_resolved: skipped", in: Result{KeyReward: 0.5, KeySubtasks: 2, KeyVisibleOK: 1},
			want: Outcome{Measured: true, Skipped: true, Reward: 0.5}},
		{name: "no n_subtasks: skipped, visible_ok not read", in: Result{KeyReward: 0, KeyResolved: 1, KeyVisibleOK: 0},
			want: Outcome{Measured: true, Skipped: true}},
		{name: "no reward: skipped", in: Result{KeySubtasks: 2, KeyResolved: 1, KeyVisibleOK: 1},
			want: Outcome{Measured: true, Skipped: true}},
		{name: "empty", in: Result{}, want: Outcome{Measured: true, Skipped: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, tc.in.Outcome()); d != "" {
				t.Errorf("Outcome (-want +got):\n%s", d)
			}
		})
	}
}
