// Package scoring computes SWE-sweep's campaign score from trial results, by the rules of
// SWE-sweep's own scoring (docs/cli.md, "How sweep info scores"), so that a campaign in the
// cluster, its export and SWE-sweep's tool on that export give the same numbers.
package scoring

import (
	"slices"
	"sort"
	"strconv"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Trial is one result as scoring needs it: a reward.json of a job tree, or a finished trial of
// the cluster.
type Trial struct {
	Task string
	// Measured is false for a cluster trial that ended without a measurement (verifier or
	// infrastructure failure, grader_failed): UnmeasuredTrials counts it, and it never scores.
	Measured bool
	// Rewards is the result, nil when the trial left none.
	Rewards reward.Result
}

// Task is one task's line of the report.
type Task struct {
	Task string
	// Trials counts the graded trials of the task.
	Trials int
	// Subtasks is n_subtasks of the task's first graded trial, as SWE-sweep takes it;
	// SubtasksVary is set when another of its trials says otherwise (a build failure writes
	// 0), so that the task's resolved bugs may exceed Subtasks.
	Subtasks     int
	SubtasksVary bool
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
	// EvaluationFailures are the sorted names of the tasks with a result that has all four
	// scoring keys and grader_failed ≥ 1, SWE-sweep's list.
	EvaluationFailures []string
	// UnmeasuredTrials counts the trials that ended without a measurement (Trial.Measured
	// false): the SweepRun status's evaluation failures (docs/design.md §10).
	UnmeasuredTrials int
	// Skipped counts the results scoring skips: none, or one that lacks one of SWE-sweep's
	// four scoring keys (a reward-only task).
	Skipped int
	Tasks   []Task
}

// scoringKeys are the keys without which SWE-sweep's scoring skips a result.
var scoringKeys = []string{reward.KeySubtasks, reward.KeyResolved, reward.KeyVisibleOK, reward.KeyReward}

// ScoringKeys are the keys without which SWE-sweep's scoring skips a result.
func ScoringKeys() []string { return slices.Clone(scoringKeys) }

// HasScoringKeys reports whether r has the four keys SWE-sweep's scoring needs.
func HasScoringKeys(r reward.Result) bool {
	for _, k := range scoringKeys {
		if _, ok := r[k]; !ok {
			return false
		}
	}
	return true
}

// Counted reports whether a trial counts in its task's means, as Score counts it: a measured
// trial whose result has the four scoring keys and no grader failure. o is its outcome.
func Counted(t Trial) (o reward.Outcome, ok bool) {
	if !t.Measured || t.Rewards == nil || !HasScoringKeys(t.Rewards) {
		return reward.Outcome{}, false
	}
	o = t.Rewards.Outcome()
	return o, o.Measured
}

// Score computes the report with SWE-sweep's rules, in the order of trials (the order sets
// which trial is a task's first): a result without the four scoring keys is skipped; one with
// grader_failed ≥ 1 names its task an evaluation failure and scores nothing; every other
// result of a measured trial scores, its counts truncated to integers, with the task's bug
// count taken from its first such trial. Bounds are not checked here: a job tree is scored as
// SWE-sweep scores it, and the controller never lets an out-of-bounds result be a measurement.
// Sums run in trial order, as Python's sum() over floats adds them.
func Score(trials []Trial) Report {
	type acc struct {
		trials            int
		subtasks          int
		resolved, counted int64
		rewardΣ           float64
		regressed         int
		vary              bool
	}
	byTask := map[string]*acc{}
	failed := map[string]bool{}
	var rep Report
	for _, t := range trials {
		if !t.Measured {
			rep.UnmeasuredTrials++
		}
		if t.Rewards == nil || !HasScoringKeys(t.Rewards) {
			rep.Skipped++
			continue
		}
		o := t.Rewards.Outcome()
		if !o.Measured {
			failed[t.Task] = true
			continue
		}
		if !t.Measured {
			continue
		}
		a := byTask[t.Task]
		if a == nil {
			a = &acc{subtasks: o.Bugs}
			byTask[t.Task] = a
		}
		rep.GradedTrials++
		a.trials++
		a.vary = a.vary || o.Bugs != a.subtasks
		resolved := int64(o.Resolved)
		a.resolved += resolved
		a.rewardΣ += o.Reward
		if o.Regressed {
			a.regressed++
		} else {
			a.counted += resolved
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
		task := Task{Task: name, Trials: a.trials, Subtasks: a.subtasks, SubtasksVary: a.vary, Resolved: float64(a.resolved) / n,
			ResolvedCounted: float64(a.counted) / n, Regressed: a.regressed, Reward: a.rewardΣ / n}
		rep.Tasks = append(rep.Tasks, task)
		rep.GradedBugs += task.Subtasks
		rep.ResolvedBugs += task.ResolvedCounted
		resolvedRaw += task.Resolved
		rewardΣ += task.Reward
	}
	rep.GradedTasks = len(rep.Tasks)
	if rep.GradedBugs != 0 {
		rep.Score = rep.ResolvedBugs / float64(rep.GradedBugs)
		rep.ScoreIgnoringRegressions = resolvedRaw / float64(rep.GradedBugs)
	}
	if rep.GradedTasks > 0 {
		rep.MeanReward = rewardΣ / float64(rep.GradedTasks)
	}
	rep.EvaluationFailures = make([]string, 0, len(failed))
	for name := range failed {
		rep.EvaluationFailures = append(rep.EvaluationFailures, name)
	}
	sort.Strings(rep.EvaluationFailures)
	return rep
}

// Precision is the number of decimals scores and rewards carry in the API.
const Precision = 4

// Format renders x with Precision decimals, the API's fixed-precision form.
func Format(x float64) string {
	return strconv.FormatFloat(x, 'f', Precision, 64)
}
