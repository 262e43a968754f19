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

// declaring gives t the trial's declared bug count.
func declaring(t Trial, declared int) Trial {
	t.DeclaredBugs = declared
	return t
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
		"no trials": {want: Report{}},
		"one task, half resolved": {
			trials: []Trial{sweep("a", 4, 2, 1)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 2, Score: 0.5, ScoreIgnoringRegressions: 0.5, MeanReward: 0.5,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 2, ResolvedCounted: 2, Reward: 0.5}}},
		},
		"grader failure is an evaluation failure, not a zero": {
			trials: []Trial{sweep("a", 4, 4, 1), graderFailed},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 4, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: 1,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 4, ResolvedCounted: 4, Reward: 1}}},
		},
		"a bare grader failure lacks the scoring keys and is an evaluation failure all the same": {
			trials: []Trial{sweep("a", 4, 4, 1), bareGraderFailed},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 4, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: 1,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 4, ResolvedCounted: 4, Reward: 1}}},
		},
		"unmeasured trial is an evaluation failure": {
			trials: []Trial{{Task: "b", Measured: false}},
			want:   Report{EvaluationFailures: 1},
		},
		"regression counts zero in the score, not in the score ignoring regressions": {
			trials: []Trial{sweep("a", 4, 3, 0), sweep("b", 6, 3, 1)},
			want: Report{GradedTrials: 2, GradedTasks: 2, GradedBugs: 10, ResolvedBugs: 3, Score: 0.3, ScoreIgnoringRegressions: 0.6, MeanReward: 0.25,
				Tasks: []Task{
					{Task: "a", Trials: 1, Subtasks: 4, Resolved: 3, ResolvedCounted: 0, Regressed: 1, Reward: 0},
					{Task: "b", Trials: 1, Subtasks: 6, Resolved: 3, ResolvedCounted: 3, Reward: 0.5},
				}},
		},
		"several attempts average per task before summing": {
			trials: []Trial{sweep("a", 4, 4, 1), sweep("a", 4, 2, 1), sweep("a", 4, 3, 0), sweep("b", 2, 1, 1)},
			want: Report{GradedTrials: 4, GradedTasks: 2, GradedBugs: 6, ResolvedBugs: 2 + 1, Score: 0.5, ScoreIgnoringRegressions: (3.0 + 1) / 6, MeanReward: (0.5 + 0.5) / 2,
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
				Tasks: []Task{{Task: "b", Trials: 1, Subtasks: 2, Resolved: 1, ResolvedCounted: 1, Reward: 0.5}}},
		},
		"a campaign of reward-only tasks has no graded bugs": {
			trials: []Trial{rewardOnly("r1", 1), rewardOnly("r2", 0)},
			want:   Report{Skipped: 2},
		},
		"a task whose every trial failed grading is not graded": {
			trials: []Trial{graderFailed, graderFailed, sweep("b", 2, 2, 1)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 2, ResolvedBugs: 2, Score: 1, ScoreIgnoringRegressions: 1, MeanReward: 1, EvaluationFailures: 2,
				Tasks: []Task{{Task: "b", Trials: 1, Subtasks: 2, Resolved: 2, ResolvedCounted: 2, Reward: 1}}},
		},
		// A 40-bug campaign, one of whose trials claims 1000 resolved bugs, used to score 25.
		"a result out of bounds is an evaluation failure, never counted": {
			trials: []Trial{sweep("a", 40, 0, 1), declaring(sweep("b", 2, 1000, 1), 0)},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 40, EvaluationFailures: 1,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 40}}},
		},
		"reward above 1, n_subtasks other than declared, a fractional count, a flag of 2": {
			trials: []Trial{
				rewardOnly("r", 25),
				declaring(sweep("a", 1000, 1000, 1), 40),
				declaring(sweep("a", 4, 1.5, 1), 4),
				declaring(sweep("a", 4, 4, 2), 4),
				declaring(sweep("a", 4, 2, 1), 4),
			},
			want: Report{GradedTrials: 1, GradedTasks: 1, GradedBugs: 4, ResolvedBugs: 2, Score: 0.5, ScoreIgnoringRegressions: 0.5, MeanReward: 0.5, EvaluationFailures: 4,
				Tasks: []Task{{Task: "a", Trials: 1, Subtasks: 4, Resolved: 2, ResolvedCounted: 2, Reward: 0.5}}},
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
