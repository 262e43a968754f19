package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCompare(t *testing.T) {
	a := Score([]Trial{sweep("both", 4, 1, 1), sweep("both", 4, 3, 0), sweep("gone", 2, 2, 1)})
	b := Score([]Trial{sweep("both", 4, 4, 1), sweep("new", 10, 5, 1), sweep("zero", 1, 0, 1)})
	got := Compare(a, b)
	want := Comparison{
		Difference: SummaryDelta{GradedTasks: 1, GradedBugs: 15 - 6, ResolvedBugs: 9 - 2.5, Score: 9.0/15 - 2.5/6,
			ScoreIgnoringRegressions: 9.0/15 - 4.0/6, MeanReward: (1+0.5+0)/3.0 - (0.125+1)/2},
		Tasks:   []TaskComparison{{Task: "both", A: a.Tasks[0], B: b.Tasks[0], ResolvedDelta: 4 - 0.5, ScoreDelta: 1 - 0.125}},
		OnlyInA: []string{"gone"}, OnlyInB: []string{"new", "zero"},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A report against itself differs in nothing.
	same := Compare(a, a)
	if diff := cmp.Diff(Comparison{Tasks: []TaskComparison{{Task: "both", A: a.Tasks[0], B: a.Tasks[0]}, {Task: "gone", A: a.Tasks[1], B: a.Tasks[1]}},
		OnlyInA: []string{}, OnlyInB: []string{}}, same); diff != "" {
		t.Errorf("self (-want +got):\n%s", diff)
	}
	if s := (Task{Subtasks: 0, ResolvedCounted: 0}).Score(); s != 0 {
		t.Errorf("score of a task of no bug = %v", s)
	}
}
