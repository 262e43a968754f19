package reward

import (
	"testing"
)

func TestCheckBounds(t *testing.T) {
	sweep := func(edit func(Result)) Result {
		r := Result{KeyReward: 0.5, KeySubtasks: 2, KeyResolved: 1, KeyPartial: 1, KeyVisibleOK: 1, KeyRegressions: 0,
			KeyPatchApplied: 1, KeyBuildOK: 1, KeyGraderFailed: 0}
		if edit != nil {
			edit(r)
		}
		return r
	}
	for _, tc := range []struct {
		name     string
		in       Result
		declared int
		wantErr  string
	}{
		{name: "SWE-sweep's nine keys within bounds", in: sweep(nil), declared: 2},
		{name: "no declared count: n_subtasks is not compared", in: sweep(nil)},
		{name: "everything resolved", in: sweep(func(r Result) { r[KeyResolved], r[KeyPartial], r[KeyReward] = 2, 0, 1 }), declared: 2},
		{name: "reward-only", in: Result{KeyReward: 1}, declared: 5},
		{name: "bare grader failure", in: GraderFailed(), declared: 5},
		{name: "unknown keys are not bounded", in: Result{KeyReward: 0, "seconds": 1e6}},
		{name: "n_subtasks 0 of a task that declares none", in: Result{KeyReward: 0, KeySubtasks: 0, KeyResolved: 0, KeyVisibleOK: 1}},
		{name: "n_resolved 1000 of 2", in: sweep(func(r Result) { r[KeyResolved], r[KeyPartial] = 1000, 0 }), declared: 2,
			wantErr: "n_resolved is 1000, above n_subtasks (2)"},
		{name: "n_subtasks inflated past the declared count", in: sweep(func(r Result) { r[KeySubtasks], r[KeyResolved] = 1000, 1000 }), declared: 2,
			wantErr: "n_subtasks is 1000, not the trial's 2 declared bugs"},
		{name: "n_subtasks below the declared count", in: sweep(func(r Result) { r[KeySubtasks], r[KeyResolved], r[KeyPartial] = 1, 1, 0 }), declared: 40,
			wantErr: "n_subtasks is 1, not the trial's 40 declared bugs"},
		{name: "reward above 1", in: sweep(func(r Result) { r[KeyReward] = 25 }), wantErr: "reward is 25, outside [0, 1]"},
		{name: "reward below 0", in: Result{KeyReward: -0.5}, wantErr: "reward is -0.5, outside [0, 1]"},
		{name: "negative n_resolved", in: sweep(func(r Result) { r[KeyResolved] = -1 }), wantErr: "n_resolved is -1, not a non-negative integer"},
		{name: "fractional n_subtasks", in: sweep(func(r Result) { r[KeySubtasks] = 2.5 }), wantErr: "n_subtasks is 2.5, not a non-negative integer"},
		{name: "fractional n_partial", in: sweep(func(r Result) { r[KeyPartial] = 0.5 }), wantErr: "n_partial is 0.5, not a non-negative integer"},
		{name: "re-check figure", in: sweep(func(r Result) { r[KeyRegressionsCleared] = 2 }), declared: 2},
		{name: "fractional n_regressions_cleared", in: sweep(func(r Result) { r[KeyRegressionsCleared] = 0.5 }),
			wantErr: "n_regressions_cleared is 0.5, not a non-negative integer"},
		{name: "negative n_regressions", in: sweep(func(r Result) { r[KeyRegressions] = -3 }), wantErr: "n_regressions is -3, not a non-negative integer"},
		{name: "n_partial above n_subtasks", in: sweep(func(r Result) { r[KeyResolved], r[KeyPartial] = 0, 3 }),
			wantErr: "n_partial is 3, above n_subtasks (2)"},
		{name: "a bug both resolved and partial", in: sweep(func(r Result) { r[KeyResolved], r[KeyPartial] = 2, 1 }),
			wantErr: "n_resolved + n_partial is 3, above n_subtasks (2): a bug is resolved or partial, not both"},
		{name: "visible_ok 2", in: sweep(func(r Result) { r[KeyVisibleOK] = 2 }), wantErr: "visible_ok is 2, not 0 or 1"},
		{name: "agent_patch_applied 0.5", in: sweep(func(r Result) { r[KeyPatchApplied] = 0.5 }), wantErr: "agent_patch_applied is 0.5, not 0 or 1"},
		{name: "agent_build_ok -1", in: sweep(func(r Result) { r[KeyBuildOK] = -1 }), wantErr: "agent_build_ok is -1, not 0 or 1"},
		{name: "grader_failed 2", in: sweep(func(r Result) { r[KeyGraderFailed] = 2 }), wantErr: "grader_failed is 2, not 0 or 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.in.CheckBounds(tc.declared)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("CheckBounds(%d) = %q, want %q", tc.declared, got, tc.wantErr)
			}
		})
	}
}
