package passk

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// bugs is a trial of task whose eval.json lists ids, those in resolved resolved.
func bugs(task string, visibleOK float64, ids []string, resolved ...string) Trial {
	var subtasks []sweepbundle.SubtaskOutcome
	for _, id := range ids {
		subtasks = append(subtasks, sweepbundle.SubtaskOutcome{ID: id, Resolved: contains(resolved, id)})
	}
	t := counts(task, len(ids), len(resolved), visibleOK)
	t.Subtasks = subtasks
	return t
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// counts is a trial with reward.json's numbers and no eval.json.
func counts(task string, subtasks, resolved int, visibleOK float64) Trial {
	r := 0.0
	if visibleOK >= 1 && subtasks > 0 {
		r = float64(resolved) / float64(subtasks)
	}
	return Trial{Source: task + "/verifier/reward.json", NoSubtasks: "no eval.json", Trial: scoring.Trial{Task: task, Measured: true, Rewards: reward.Result{
		reward.KeyReward: r, reward.KeySubtasks: float64(subtasks), reward.KeyResolved: float64(resolved), reward.KeyVisibleOK: visibleOK, reward.KeyGraderFailed: 0}}}
}

func listed(t Trial) Trial { t.NoSubtasks = ""; return t }

func p(x float64) *float64 { return &x }

var three = []string{"b1", "b2", "b3"}

func TestCompute(t *testing.T) {
	graderFailed := counts("a", 3, 0, 0)
	graderFailed.Rewards[reward.KeyGraderFailed] = 1
	unmeasured := bugs("a", 1, three, three...)
	unmeasured.Measured = false
	for _, tc := range []struct {
		name   string
		trials []Trial
		ks     []int
		want   Report
	}{
		{
			name: "per bug: a regressed attempt resolves nothing; grader failures and unmeasured trials do not count",
			trials: []Trial{
				listed(bugs("a", 1, three, "b1")), graderFailed, listed(bugs("a", 1, three, "b1", "b2")),
				listed(bugs("a", 0, three, "b1", "b2", "b3")), unmeasured,
			},
			ks: []int{2, 1, 4, 2},
			want: Report{K: []int{1, 2, 4},
				PassAtK: []Value{{K: 1, PassAtK: p(1.0 / 3), Units: 3}, {K: 2, PassAtK: p((1 + 2.0/3 + 0) / 3), Units: 3}, {K: 4, NotComputable: 3}},
				Spread:  Spread{Scores: []float64{1.0 / 3, 2.0 / 3, 0}, Min: 0, Max: 2.0 / 3, StdDev: math.Sqrt(2.0 / 27)},
				Tasks: []Task{{Task: "a", Unit: UnitBug, Attempts: 3,
					Units:   []UnitResult{{ID: "b1", Successes: 2}, {ID: "b2", Successes: 1}, {ID: "b3", Successes: 0}},
					PassAtK: []Value{{K: 1, PassAtK: p(1.0 / 3), Units: 3}, {K: 2, PassAtK: p((1 + 2.0/3 + 0) / 3), Units: 3}, {K: 4, NotComputable: 3}},
					Spread:  Spread{Scores: []float64{1.0 / 3, 2.0 / 3, 0}, Min: 0, Max: 2.0 / 3, StdDev: math.Sqrt(2.0 / 27)}}},
			},
		},
		{
			name: "per task without eval.json (a SWE-bench instance): success is every bug resolved without regression",
			trials: []Trial{counts("i", 1, 1, 1), counts("i", 1, 0, 1), counts("i", 1, 1, 0),
				counts("j", 1, 1, 1)},
			ks: []int{1, 2},
			want: Report{K: []int{1, 2}, UnevenAttempts: true,
				// i: 1 of 3; j: 1 of 1. pass@2 only for i.
				PassAtK: []Value{{K: 1, PassAtK: p((1.0/3 + 1) / 2), Units: 2}, {K: 2, PassAtK: p(2.0 / 3), Units: 1, NotComputable: 1}},
				// Attempt 1: i and j resolved; attempts 2 and 3 are i's alone.
				Spread: Spread{Scores: []float64{1, 0, 0}, Min: 0, Max: 1, StdDev: math.Sqrt(2.0 / 9)},
				Tasks: []Task{
					{Task: "i", Unit: UnitTask, Note: "i/verifier/reward.json: no eval.json", Attempts: 3, Units: []UnitResult{{ID: "i", Successes: 1}},
						PassAtK: []Value{{K: 1, PassAtK: p(1.0 / 3), Units: 1}, {K: 2, PassAtK: p(2.0 / 3), Units: 1}},
						Spread:  Spread{Scores: []float64{1, 0, 0}, Min: 0, Max: 1, StdDev: math.Sqrt(2.0 / 9)}},
					{Task: "j", Unit: UnitTask, Note: "j/verifier/reward.json: no eval.json", Attempts: 1, Units: []UnitResult{{ID: "j", Successes: 1}},
						PassAtK: []Value{{K: 1, PassAtK: p(1), Units: 1}, {K: 2, NotComputable: 1}},
						Spread:  Spread{Scores: []float64{1}, Min: 1, Max: 1}},
				},
			},
		},
		{
			name:   "one trial without per-bug results makes its task per task",
			trials: []Trial{listed(bugs("a", 1, three, three...)), counts("a", 3, 3, 1)},
			ks:     []int{1},
			want: Report{K: []int{1}, PassAtK: []Value{{K: 1, PassAtK: p(1), Units: 1}},
				Spread: Spread{Scores: []float64{1, 1}, Min: 1, Max: 1},
				Tasks: []Task{{Task: "a", Unit: UnitTask, Note: "a/verifier/reward.json: no eval.json", Attempts: 2, Units: []UnitResult{{ID: "a", Successes: 2}},
					PassAtK: []Value{{K: 1, PassAtK: p(1), Units: 1}}, Spread: Spread{Scores: []float64{1, 1}, Min: 1, Max: 1}}},
			},
		},
		{
			name: "a failed build lists no bug: the bugs n_subtasks counts are unlisted, never resolved",
			trials: []Trial{listed(bugs("a", 1, []string{"b1", "b2"}, "b1")), func() Trial {
				tr := listed(counts("a", 2, 0, 0))
				tr.Subtasks = []sweepbundle.SubtaskOutcome{}
				return tr
			}(), func() Trial {
				tr := listed(counts("b", 2, 0, 0))
				tr.Subtasks = []sweepbundle.SubtaskOutcome{}
				return tr
			}()},
			ks: []int{1},
			want: Report{K: []int{1}, UnevenAttempts: true, PassAtK: []Value{{K: 1, PassAtK: p(0.25 / 2), Units: 4}},
				Spread: Spread{Scores: []float64{0.25, 0}, Min: 0, Max: 0.25, StdDev: 0.125},
				Tasks: []Task{
					{Task: "a", Unit: UnitBug, Attempts: 2, Units: []UnitResult{{ID: "b1", Successes: 1}, {ID: "b2"}},
						PassAtK: []Value{{K: 1, PassAtK: p(0.25), Units: 2}}, Spread: Spread{Scores: []float64{0.5, 0}, Max: 0.5, StdDev: 0.25}},
					{Task: "b", Unit: UnitBug, Attempts: 1, Units: []UnitResult{{ID: "(unlisted 1)"}, {ID: "(unlisted 2)"}},
						PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 2}}, Spread: Spread{Scores: []float64{0}}},
				},
			},
		},
		{
			name:   "eval.json that disagrees with n_resolved is not used",
			trials: []Trial{func() Trial { tr := listed(bugs("a", 1, three, "b1")); tr.Rewards[reward.KeyResolved] = 2; return tr }()},
			ks:     []int{1},
			want: Report{K: []int{1}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{2.0 / 3}, Min: 2.0 / 3, Max: 2.0 / 3},
				Tasks: []Task{{Task: "a", Unit: UnitTask, Note: "a/verifier/reward.json: eval.json lists 1 subtasks resolved, reward.json's n_resolved is 2", Attempts: 1,
					Units: []UnitResult{{ID: "a"}}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{2.0 / 3}, Min: 2.0 / 3, Max: 2.0 / 3}}}},
		},
		{
			name:   "eval.json that lists more bugs than n_subtasks is not used",
			trials: []Trial{func() Trial { tr := listed(bugs("a", 1, three, "b1")); tr.Rewards[reward.KeySubtasks] = 2; return tr }()},
			ks:     []int{1},
			want: Report{K: []int{1}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{0.5}, Min: 0.5, Max: 0.5},
				Tasks: []Task{{Task: "a", Unit: UnitTask, Note: "a/verifier/reward.json: eval.json lists 3 subtasks, reward.json's n_subtasks is 2", Attempts: 1,
					Units: []UnitResult{{ID: "a"}}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{0.5}, Min: 0.5, Max: 0.5}}}},
		},
		{
			name: "a subtask listed twice is not used",
			trials: []Trial{func() Trial {
				tr := listed(bugs("a", 1, []string{"b1", "b2"}, "b1"))
				tr.Subtasks[1].ID = "b1"
				return tr
			}()},
			ks: []int{1},
			want: Report{K: []int{1}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{0.5}, Min: 0.5, Max: 0.5},
				Tasks: []Task{{Task: "a", Unit: UnitTask, Note: `a/verifier/reward.json: eval.json lists subtask "b1" twice`, Attempts: 1,
					Units: []UnitResult{{ID: "a"}}, PassAtK: []Value{{K: 1, PassAtK: p(0), Units: 1}}, Spread: Spread{Scores: []float64{0.5}, Min: 0.5, Max: 0.5}}}},
		},
		{
			name:   "nothing counted",
			trials: []Trial{graderFailed},
			ks:     []int{1},
			want:   Report{K: []int{1}, PassAtK: []Value{{K: 1}}, Spread: Spread{Scores: []float64{}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.trials, tc.ks)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// With every trial listing its bugs, pass@1 over bugs is the score, and with as many
// attempts for every task the mean per-attempt score is too: pass@k extends the report, it
// never contradicts it.
func TestComputeAgreesWithScore(t *testing.T) {
	five := []string{"b1", "b2", "b3", "b4", "b5"}
	trials := []Trial{
		listed(bugs("a", 1, three, "b1")), listed(bugs("a", 0, three, "b1", "b2")), listed(bugs("a", 1, three, three...)),
		listed(bugs("b", 1, five, "b2", "b4")), listed(bugs("b", 1, five)), listed(bugs("b", 1, five, five...)),
	}
	rep := Compute(trials, []int{1})
	score := scoring.Score(scoringTrials(trials)).Score
	if got := *rep.PassAtK[0].PassAtK; math.Abs(got-score) > 1e-12 {
		t.Errorf("pass@1 = %v, score = %v", got, score)
	}
	mean := 0.0
	for _, s := range rep.Spread.Scores {
		mean += s
	}
	if mean /= float64(len(rep.Spread.Scores)); math.Abs(mean-score) > 1e-12 {
		t.Errorf("mean per-attempt score = %v, score = %v", mean, score)
	}
}
