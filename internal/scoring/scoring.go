// Package scoring computes SWE-sweep's campaign score from trial rewards (DESIGN section 5).
package scoring

import (
	"math"
	"sort"
	"strconv"
)

// Reward keys a SWE-sweep verifier writes.
const (
	KeyReward       = "reward"
	KeySubtasks     = "n_subtasks"
	KeyResolved     = "n_resolved"
	KeyPartial      = "n_partial"
	KeyVisibleOK    = "visible_ok"
	KeyRegressions  = "n_regressions"
	KeyPatchApplied = "agent_patch_applied"
	KeyBuildOK      = "agent_build_ok"
	KeyGraderFailed = "grader_failed"
)

// Trial is one trial's outcome as scoring needs it.
type Trial struct {
	Task string
	// Measured is false when the trial ended without rewards (verifier or infrastructure
	// failure): it is an evaluation failure, never a 0.
	Measured bool
	Rewards  map[string]float64
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
	GradedTasks int
	GradedBugs  int
	// ResolvedBugs are bugs resolved in regression-free trials (the score's numerator).
	ResolvedBugs             float64
	Score                    float64
	ScoreIgnoringRegressions float64
	MeanReward               float64
	EvaluationFailures       int
	Tasks                    []Task
}

// IsMeasured reports whether rewards are a measurement: a grader failure is not.
func IsMeasured(rewards map[string]float64) bool {
	return rewards[KeyGraderFailed] < 1
}

// Score computes the report. Trials with grader_failed or without rewards are dropped and
// counted as evaluation failures. A reward-only task (no n_subtasks) counts as one bug,
// resolved to the extent of its reward, so that Harbor-style tasks share the micro-average.
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
		if !t.Measured || !IsMeasured(t.Rewards) {
			rep.EvaluationFailures++
			continue
		}
		a := byTask[t.Task]
		if a == nil {
			a = &acc{}
			byTask[t.Task] = a
		}
		reward := t.Rewards[KeyReward]
		subtasks, resolved := 1, math.Max(0, math.Min(1, reward))
		if n, ok := t.Rewards[KeySubtasks]; ok {
			subtasks, resolved = int(n), t.Rewards[KeyResolved]
		}
		visibleOK := 1.0
		if v, ok := t.Rewards[KeyVisibleOK]; ok {
			visibleOK = v
		}
		a.trials++
		a.subtasks = max(a.subtasks, subtasks)
		a.resolved += resolved
		a.rewardΣ += reward
		if visibleOK < 1 {
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
