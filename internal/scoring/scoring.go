// Package scoring computes SWE-sweep's campaign score from trial results. What one result
// counts for is internal/reward's Outcome, which the trial controller uses too.
package scoring

import (
	"sort"
	"strconv"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Trial is one trial's outcome as scoring needs it.
type Trial struct {
	Task string
	// Measured is false when the trial ended without rewards (verifier or infrastructure
	// failure): it is an evaluation failure, never a 0.
	Measured bool
	Rewards  reward.Result
	// DeclaredBugs is the trial's declared bug count (spec.bugsTotal), 0 when unknown; a
	// result whose n_subtasks differs is out of bounds (reward.Result.CheckBounds).
	DeclaredBugs int
}

// Task is one task's line of the report.
type Task struct {
	Task string
	// Trials counts the graded trials of the task.
	Trials   int
	Subtasks int
	// Resolved is the mean n_resolved over the task's trials; ResolvedCounted the same with
	// a regressed trial counted as 0.
	Resolved        float64
	ResolvedCounted float64
	// Regressed counts the task's trials with visible_ok < 1.
	Regressed int
	// Reward is the mean reward over the task's trials.
	Reward float64
}

// Report is SWE-sweep's benchmark report.
type Report struct {
	// GradedTrials counts the scored trials.
	GradedTrials int
	GradedTasks  int
	GradedBugs   int
	// ResolvedBugs are bugs resolved in regression-free trials (the score's numerator).
	ResolvedBugs             float64
	Score                    float64
	ScoreIgnoringRegressions float64
	MeanReward               float64
	EvaluationFailures       int
	// Skipped counts the trials whose result scoring skips (reward.Outcome): neither graded
	// nor evaluation failures.
	Skipped int
	Tasks   []Task
}

// Score computes the report. A trial without a result, or whose result says grader_failed or
// is out of bounds, is an evaluation failure; a result that lacks one of SWE-sweep's scoring
// keys (a reward-only task) is skipped. The trial controller never lets an out-of-bounds result
// succeed; Score refuses one all the same, whatever its source (a job directory, an old trial).
func Score(trials []Trial) Report {
	type acc struct {
		trials                     int
		subtasks                   int
		resolved, counted, rewardΣ float64
		regressed                  int
	}
	byTask := map[string]*acc{}
	var rep Report
	for _, t := range trials {
		if !t.Measured || t.Rewards.CheckBounds(t.DeclaredBugs) != nil {
			rep.EvaluationFailures++
			continue
		}
		o := t.Rewards.Outcome()
		switch {
		case !o.Measured:
			rep.EvaluationFailures++
			continue
		case o.Skipped:
			rep.Skipped++
			continue
		}
		a := byTask[t.Task]
		if a == nil {
			a = &acc{}
			byTask[t.Task] = a
		}
		rep.GradedTrials++
		a.trials++
		a.subtasks = max(a.subtasks, o.Bugs)
		a.resolved += o.Resolved
		a.rewardΣ += o.Reward
		if o.Regressed {
			a.regressed++
		} else {
			a.counted += o.Resolved
		}
	}
	names := make([]string, 0, len(byTask))
	for name := range byTask {
		names = append(names, name)
	}
	sort.Strings(names)
	var resolvedRaw, rewardΣ float64
	for _, name := range names {
		a := byTask[name]
		n := float64(a.trials)
		task := Task{Task: name, Trials: a.trials, Subtasks: a.subtasks, Resolved: a.resolved / n,
			ResolvedCounted: a.counted / n, Regressed: a.regressed, Reward: a.rewardΣ / n}
		rep.Tasks = append(rep.Tasks, task)
		rep.GradedBugs += task.Subtasks
		rep.ResolvedBugs += task.ResolvedCounted
		resolvedRaw += task.Resolved
		rewardΣ += task.Reward
	}
	rep.GradedTasks = len(rep.Tasks)
	if rep.GradedBugs > 0 {
		rep.Score = rep.ResolvedBugs / float64(rep.GradedBugs)
		rep.ScoreIgnoringRegressions = resolvedRaw / float64(rep.GradedBugs)
	}
	if rep.GradedTasks > 0 {
		rep.MeanReward = rewardΣ / float64(rep.GradedTasks)
	}
	return rep
}

// Precision is the number of decimals scores and rewards carry in the API.
const Precision = 4

// Format renders x with Precision decimals, the API's fixed-precision form.
func Format(x float64) string {
	return strconv.FormatFloat(x, 'f', Precision, 64)
}
