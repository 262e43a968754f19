package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

func sweep(task string, subtasks, resolved, visibleOK float64) Trial {
	r := 0.0
	if visibleOK >= 1 {
		r = resolved / subtasks
	}
	return Trial{Task: task, Measured: true, Rewards: reward.Result{
		reward.KeyReward: r, reward.KeySubtasks: subtasks, reward.KeyResolved: resolved, reward.KeyVisibleOK: visibleOK,
		reward.KeyGraderFailed: 0,
	}}
}

func rewardOnly(task string, r float64) Trial {
	return Trial{Task: task, Measured: true, Rewards: reward.Result{reward.KeyReward: r}}
}

func TestScore(t *testing.T) {
	// A grader that crashed after it could write its full result (SWE-sweep's nine keys).
	graderFailed := Trial{Task: "a", Measured: true, Rewards: reward.Result{reward.KeyReward: 0, reward.KeySubtasks: 4,
		reward.KeyResolved: 0, reward.KeyVisibleOK: 0, reward.KeyGraderFailed: 1}}
	bareGraderFailed := Trial{Task: "a", Measured: true, Rewards: reward.GraderFailed()}
	cases := map[string]struct {
		trials []Trial
		want   Report
	}{
		"no trials": {want: Report{EvaluationFailures: []string{}}},
		"one task, half resolved": {
			trials: []Trial{sweep("a", 4, 2, 1)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 2, Score: 0.5, ScoreIgnoringRegressions: 0.5, MeanReward: 0.5,
				EvaluationFailures: []string{}, Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 2, ResolvedCounted: 2, Reward: 0.5}}},
		},
		"grader failure names its task an evaluation failure, not a zero": {
			trials: []Trial{sweep("a", 4, 4, 1), graderFailed},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 4, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: []string{"a"},
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 4, ResolvedCounted: 4, Reward: 1}}},
		},
		// SWE-sweep's rule: without the four scoring keys a result is skipped, grader_failed
		// or not. The trial itself stays not measured in the cluster (UnmeasuredTrials).
		"a bare grader failure lacks the scoring keys and is skipped": {
			trials: []Trial{sweep("a", 4, 4, 1), bareGraderFailed, {Task: "a", Rewards: reward.GraderFailed()}},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 4, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1,
				EvaluationFailures: []string{}, Skipped: 2, UnmeasuredTrials: 1,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 4, ResolvedCounted: 4, Reward: 1}}},
		},
		"unmeasured trial without a result is counted as such, and skipped": {
			trials: []Trial{{Task: "b", Measured: false}},
			want:   Report{EvaluationFailures: []string{}, UnmeasuredTrials: 1, Skipped: 1},
		},
		"an unmeasured trial never scores, whatever its result": {
			trials: []Trial{{Task: "b", Rewards: sweep("b", 2, 2, 1).Rewards}},
			want:   Report{EvaluationFailures: []string{}, UnmeasuredTrials: 1},
		},
		"regression counts zero in the score, not in the score ignoring regressions": {
			trials: []Trial{sweep("a", 4, 3, 0), sweep("b", 6, 3, 1)},
			want: Report{GradedTrials: 2, GradedTasks: 2, GradedBugs: 10, ResolvedBugs: 3, Score: 0.3, ScoreIgnoringRegressions: 0.6, MeanReward: 0.25, EvaluationFailures: []string{},
				Tasks: []Task{
					{Task: "a", Trials: 1, Subtasks: 4, Resolved: 3, ResolvedCounted: 0, Regressed: 1, Reward: 0},
					{Task: "b", Trials: 1, Subtasks: 6, Resolved: 3, ResolvedCounted: 3, Reward: 0.5},
				}},
		},
		"several attempts average per task before summing": {
			trials: []Trial{sweep("a", 4, 4, 1), sweep("a", 4, 2, 1), sweep("a", 4, 3, 0), sweep("b", 2, 1, 1)},
			want: Report{GradedTrials: 4, GradedTasks: 2, GradedBugs: 6, ResolvedBugs: 2 + 1, Score: 0.5, ScoreIgnoringRegressions: (3.0 + 1) / 6, MeanReward: (0.5 + 0.5) / 2,
				EvaluationFailures: []string{},
				Tasks: []Task{
					{Task: "a", Trials: 3, Subtasks: 4, Resolved: 3, ResolvedCounted: 2, Regressed: 1, Reward: 0.5},
					{Task: "b", Trials: 1, Subtasks: 2, Resolved: 1, ResolvedCounted: 1, Reward: 0.5},
				}},
		},
		// The campaign half of the reward-only regression (the trial half is in controllers/ and
		// test/integration): a 5-bug task whose verifier wrote reward 1 alone used to count as
		// one resolved bug here while its TaskTrial showed 5/5. Both now skip it.
		"reward-only tasks are skipped: not bugs, not evaluation failures": {
			trials: []Trial{rewardOnly("hello-5-bugs", 1), rewardOnly("r2", 0), rewardOnly("r2", 1), sweep("b", 2, 1, 1)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 2, ResolvedBugs: 1, Score: 0.5, ScoreIgnoringRegressions: 0.5, MeanReward: 0.5, Skipped: 3,
				EvaluationFailures: []string{},
				Tasks:              []Task{{Task: "b", Trials: 1, Subtasks: 2, Resolved: 1, ResolvedCounted: 1, Reward: 0.5}}},
		},
		"a task whose every trial failed grading is not graded; failures are named once, sorted": {
			trials: []Trial{graderFailed, {Task: "0", Measured: true, Rewards: graderFailed.Rewards}, graderFailed, sweep("b", 2, 2, 1)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 2, ResolvedBugs: 2, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: []string{"0", "a"},
				Tasks: []Task{{Task: "b", Trials: 1, Subtasks: 2, Resolved: 2, ResolvedCounted: 2, Reward: 1}}},
		},
		// SWE-sweep takes a task's bug count from its first trial: a build failure first
		// (n_subtasks 0) makes the task count no bugs while its other trial resolved 2.
		"n_subtasks of the first trial, even a build failure's 0": {
			trials: []Trial{sweep("a", 0, 0, 0), sweep("a", 2, 2, 1)},
			want: Report{GradedTrials: 2, GradedTasks: 1, GradedBugs: 0, ResolvedBugs: 1, MeanReward: 0.5, EvaluationFailures: []string{},
				Tasks: []Task{{Task: "a", Trials: 2, Subtasks: 0, SubtasksVary: true, Resolved: 1, ResolvedCounted: 1, Regressed: 1, Reward: 0.5}}},
		},
		// Out of bounds is scored as SWE-sweep scores it (a job tree; the controller never
		// lets such a result be a measurement): counts truncated toward zero, as int() does.
		"results out of bounds are scored as they are, counts truncated": {
			trials: []Trial{sweep("a", 2, 1000, 1), sweep("a", 2, 1.5, 1), sweep("b", 4.9, -1.5, 2)},
			want: Report{GradedTrials: 3, GradedTasks: 2, GradedBugs: 6, ResolvedBugs: 500.5 - 1, Score: 499.5 / 6, ScoreIgnoringRegressions: 499.5 / 6,
				MeanReward: (250.375 - 1.5/4.9) / 2, EvaluationFailures: []string{},
				Tasks: []Task{
					{Task: "a", Trials: 2, Subtasks: 2, Resolved: 500.5, ResolvedCounted: 500.5, Reward: 250.375},
					{Task: "b", Trials: 1, Subtasks: 4, Resolved: -1, ResolvedCounted: -1, Reward: -1.5 / 4.9},
				}},
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

// Counted is the rule Score averages by: the trials it counts are Score's graded trials.
func TestCounted(t *testing.T) {
	graderFailed := sweep("a", 4, 0, 0)
	graderFailed.Rewards[reward.KeyGraderFailed] = 1
	unmeasured := sweep("a", 4, 4, 1)
	unmeasured.Measured = false
	for _, tc := range []struct {
		name  string
		trial Trial
		want  bool
	}{
		{"scored", sweep("a", 4, 2, 1), true},
		{"regressed still counts (as 0 resolved)", sweep("a", 4, 2, 0), true},
		{"grader failure", graderFailed, false},
		{"not measured in the cluster", unmeasured, false},
		{"reward only", rewardOnly("a", 1), false},
		{"no result", Trial{Task: "a", Measured: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := Counted(tc.trial)
			if got != tc.want {
				t.Errorf("Counted = %v, want %v", got, tc.want)
			}
			if graded := Score([]Trial{tc.trial}).GradedTrials == 1; graded != tc.want {
				t.Errorf("Score grades it: %v, Counted says %v", graded, tc.want)
			}
		})
	}
}
