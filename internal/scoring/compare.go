package scoring

import "sort"

// Comparison is how report B differs from report A (`sweep compare A B`): every difference is
// B − A.
type Comparison struct {
	Difference SummaryDelta
	// Tasks are the tasks graded in both, by name.
	Tasks []TaskComparison
	// OnlyInA and OnlyInB are the tasks graded in one report alone, by name.
	OnlyInA, OnlyInB []string
}

// SummaryDelta is B − A of each summary number.
type SummaryDelta struct {
	GradedTasks, GradedBugs  int
	ResolvedBugs             float64
	Score                    float64
	ScoreIgnoringRegressions float64
	MeanReward               float64
	EvaluationFailures       int
	UnmeasuredTrials         int
}

// TaskComparison is one task graded in both reports.
type TaskComparison struct {
	Task string
	A, B Task
	// ResolvedDelta is B − A of the bugs resolved in regression-free trials (the mean over
	// attempts, ResolvedCounted); ScoreDelta of the task's score.
	ResolvedDelta, ScoreDelta float64
}

// Score is the task's share of bugs resolved in regression-free trials, ResolvedCounted over
// Subtasks; 0 for a task of no bug, as the campaign's score is.
func (t Task) Score() float64 {
	if t.Subtasks == 0 {
		return 0
	}
	return t.ResolvedCounted / float64(t.Subtasks)
}

// Compare sets report b against report a.
func Compare(a, b Report) Comparison {
	c := Comparison{Difference: SummaryDelta{
		GradedTasks:              b.GradedTasks - a.GradedTasks,
		GradedBugs:               b.GradedBugs - a.GradedBugs,
		ResolvedBugs:             b.ResolvedBugs - a.ResolvedBugs,
		Score:                    b.Score - a.Score,
		ScoreIgnoringRegressions: b.ScoreIgnoringRegressions - a.ScoreIgnoringRegressions,
		MeanReward:               b.MeanReward - a.MeanReward,
		EvaluationFailures:       len(b.EvaluationFailures) - len(a.EvaluationFailures),
		UnmeasuredTrials:         b.UnmeasuredTrials - a.UnmeasuredTrials,
	}, OnlyInA: []string{}, OnlyInB: []string{}}
	inB := map[string]Task{}
	for _, t := range b.Tasks {
		inB[t.Task] = t
	}
	inA := map[string]bool{}
	for _, ta := range a.Tasks {
		inA[ta.Task] = true
		tb, ok := inB[ta.Task]
		if !ok {
			c.OnlyInA = append(c.OnlyInA, ta.Task)
			continue
		}
		c.Tasks = append(c.Tasks, TaskComparison{Task: ta.Task, A: ta, B: tb,
			ResolvedDelta: tb.ResolvedCounted - ta.ResolvedCounted, ScoreDelta: tb.Score() - ta.Score()})
	}
	for _, tb := range b.Tasks {
		if !inA[tb.Task] {
			c.OnlyInB = append(c.OnlyInB, tb.Task)
		}
	}
	sort.Slice(c.Tasks, func(i, j int) bool { return c.Tasks[i].Task < c.Tasks[j].Task })
	sort.Strings(c.OnlyInA)
	sort.Strings(c.OnlyInB)
	return c
}
