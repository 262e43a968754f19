package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sweep(task string, subtasks, resolved, visibleOK float64) Trial {
	reward := 0.0
	if visibleOK >= 1 {
		reward = resolved / subtasks
	}
	return Trial{Task: task, Measured: true, Rewards: map[string]float64{
		KeyReward: reward, KeySubtasks: subtasks, KeyResolved: resolved, KeyVisibleOK: visibleOK, KeyGraderFailed: 0,
	}}
}

func TestScore(t *testing.T) {
	graderFailed := Trial{Task: "a", Measured: true, Rewards: map[string]float64{KeyReward: 0, KeyGraderFailed: 1}}
	cases := map[string]struct {
		trials []Trial
		want   Report
	}{
		"no trials": {want: Report{}},
		"one task, half resolved": {
			trials: []Trial{sweep("a", 4, 2, 1)},
			want: Report{GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 2, Score: 0.5, ScoreIgnoringRegressions: 0.5, MeanReward: 0.5,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 2, ResolvedCounted: 2, Reward: 0.5}}},
		},
		"grader failure is dropped, not a zero": {
			trials: []Trial{sweep("a", 4, 4, 1), graderFailed},
			want: Report{GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 4, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: 1,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 4, ResolvedCounted: 4, Reward: 1}}},
		},
		"unmeasured trial is an evaluation failure": {
			trials: []Trial{{Task: "b", Measured: false}},
			want:   Report{EvaluationFailures: 1},
		},
		"regression counts zero in the score, not in the score ignoring regressions": {
			trials: []Trial{sweep("a", 4, 3, 0), sweep("b", 6, 3, 1)},
			want: Report{GradedTasks: 2, GradedBugs: 10, ResolvedBugs: 3, Score: 0.3, ScoreIgnoringRegressions: 0.6, MeanReward: 0.25,
				Tasks: []Task{
					{Task: "a", Trials: 1, Subtasks: 4, Resolved: 3, ResolvedCounted: 0, Regressed: 1, Reward: 0},
					{Task: "b", Trials: 1, Subtasks: 6, Resolved: 3, ResolvedCounted: 3, Reward: 0.5},
				}},
		},
		"several attempts average per task before summing": {
			trials: []Trial{sweep("a", 4, 4, 1), sweep("a", 4, 2, 1), sweep("a", 4, 3, 0), sweep("b", 2, 1, 1)},
			want: Report{GradedTasks: 2, GradedBugs: 6, ResolvedBugs: 2 + 1, Score: 0.5, ScoreIgnoringRegressions: (3.0 + 1) / 6, MeanReward: (0.5 + 0.5) / 2,
				Tasks: []Task{
					{Task: "a", Trials: 3, Subtasks: 4, Resolved: 3, ResolvedCounted: 2, Regressed: 1, Reward: 0.5},
					{Task: "b", Trials: 1, Subtasks: 2, Resolved: 1, ResolvedCounted: 1, Reward: 0.5},
				}},
		},
		"reward-only tasks count as one bug each": {
			trials: []Trial{
				{Task: "r1", Measured: true, Rewards: map[string]float64{KeyReward: 1}},
				{Task: "r2", Measured: true, Rewards: map[string]float64{KeyReward: 0}},
				{Task: "r2", Measured: true, Rewards: map[string]float64{KeyReward: 1}},
				{Task: "r3", Measured: true, Rewards: map[string]float64{KeyReward: 7}},
			},
			want: Report{GradedTasks: 3, GradedBugs: 3, ResolvedBugs: 2.5, Score: 2.5 / 3, ScoreIgnoringRegressions: 2.5 / 3, MeanReward: (1 + 0.5 + 7) / 3,
				Tasks: []Task{
					{Task: "r1", Trials: 1, Subtasks: 1, Resolved: 1, ResolvedCounted: 1, Reward: 1},
					{Task: "r2", Trials: 2, Subtasks: 1, Resolved: 0.5, ResolvedCounted: 0.5, Reward: 0.5},
					{Task: "r3", Trials: 1, Subtasks: 1, Resolved: 1, ResolvedCounted: 1, Reward: 7},
				}},
		},
		"a task whose every trial failed grading is not graded": {
			trials: []Trial{graderFailed, graderFailed, sweep("b", 2, 2, 1)},
			want: Report{GradedTasks: 1, GradedBugs: 2, ResolvedBugs: 2, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: 2,
				Tasks: []Task{{Task: "b", Trials: 1, Subtasks: 2, Resolved: 2, ResolvedCounted: 2, Reward: 1}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Score(tc.trials)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	cases := map[float64]string{0: "0.0000", 1: "1.0000", 2.0 / 3: "0.6667", 0.5: "0.5000"}
	for in, want := range cases {
		if got := Format(in); got != want {
			t.Errorf("Format(%v) = %q, want %q", in, got, want)
		}
	}
}
