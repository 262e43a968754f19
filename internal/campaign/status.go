package campaign

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// ScoringTrial turns a finished trial's status into scoring's input. Only a Succeeded trial
// whose result is within bounds for its declared bugs is a measurement: one out of bounds
// (written before the controller checked, or by hand) is a verifier error here, as the
// controller makes it, never a score. `sweep export` writes what this returns, so that the
// cluster and its export score the same.
func ScoringTrial(t *evalv1.TaskTrial) scoring.Trial {
	st := scoring.Trial{Task: t.Spec.Task, Measured: t.Status.Phase == evalv1.TrialSucceeded}
	if len(t.Status.Rewards) == 0 {
		return st
	}
	st.Rewards = make(map[string]float64, len(t.Status.Rewards))
	for k, v := range t.Status.Rewards {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			st.Rewards[k] = f
		}
	}
	if st.Measured && st.Rewards.CheckBounds(int(t.Spec.BugsTotal)) != nil {
		st.Measured = false
	}
	return st
}

// SortAsExported orders trials as `sweep export` lays them out and SWE-sweep's scoring then
// reads them (by harborjob.FolderName), so that a task's first trial, whose n_subtasks scoring
// takes, is the same in the cluster and in its export.
func SortAsExported(trials []*evalv1.TaskTrial) {
	sorted := make([]*evalv1.TaskTrial, 0, len(trials))
	for _, i := range exportOrder(trials) {
		sorted = append(sorted, trials[i])
	}
	copy(trials, sorted)
}

// exportOrder is the indices of trials in SortAsExported's order. Each folder name (a hash)
// is computed once, and the trials are not moved: a campaign's status is summed over all of
// its trials at every reconcile.
func exportOrder(trials []*evalv1.TaskTrial) []int {
	type keyed struct {
		folder string
		index  int
	}
	keys := make([]keyed, len(trials))
	for i := range trials {
		keys[i] = keyed{harborjob.FolderName(harborjob.Trial{Name: trials[i].Name, Task: trials[i].Spec.Task}), i}
	}
	slices.SortStableFunc(keys, func(a, b keyed) int { return strings.Compare(a.folder, b.folder) })
	order := make([]int, len(keys))
	for i, k := range keys {
		order[i] = k.index
	}
	return order
}

// Queued reports whether a trial that has not finished waits for its Kueue queue to admit
// its current stage's Job (its Admitted condition is false).
func Queued(t *evalv1.TaskTrial) bool {
	return !t.Status.Phase.Finished() && meta.IsStatusConditionFalse(t.Status.Conditions, evalv1.TrialAdmitted)
}

// Counts tallies trials by phase, and the queued ones among them.
func Counts(trials []*evalv1.TaskTrial, total int32) evalv1.TrialCounts {
	c := evalv1.TrialCounts{Total: total, Created: int32(len(trials))}
	for i := range trials {
		if Queued(trials[i]) {
			c.Queued++
		}
		switch trials[i].Status.Phase {
		case evalv1.TrialAgentRunning:
			c.Running++
		case evalv1.TrialVerifying:
			c.Verifying++
		case evalv1.TrialSucceeded:
			c.Succeeded++
		case evalv1.TrialFailed:
			c.Failed++
		case evalv1.TrialError:
			c.Error++
		default:
			c.Pending++
		}
	}
	return c
}

// FinishedTrials counts the trials that ended.
func FinishedTrials(c evalv1.TrialCounts) int32 { return c.Succeeded + c.Failed + c.Error }

// Aggregate fills the score fields of a SweepRun status from its finished trials; they stay
// empty until a trial is graded.
func Aggregate(status *evalv1.SweepRunStatus, trials []*evalv1.TaskTrial) scoring.Report {
	in := make([]scoring.Trial, 0, len(trials))
	for _, i := range exportOrder(trials) {
		if trials[i].Status.Phase.Finished() {
			in = append(in, ScoringTrial(trials[i]))
		}
	}
	rep := scoring.Score(in)
	status.GradedTrials = int32(rep.GradedTrials)
	status.EvaluationFailures = int32(rep.UnmeasuredTrials)
	status.BugsTotal = int32(rep.GradedBugs)
	if rep.GradedTrials == 0 {
		// No score yet, which is not a score of 0.
		status.BugsResolved, status.Score, status.ScoreIgnoringRegressions, status.MeanReward = "", "", "", ""
		return rep
	}
	status.BugsResolved = strconv.FormatFloat(rep.ResolvedBugs, 'f', 2, 64)
	status.Score = scoring.Format(rep.Score)
	status.ScoreIgnoringRegressions = scoring.Format(rep.ScoreIgnoringRegressions)
	status.MeanReward = scoring.Format(rep.MeanReward)
	return rep
}

// Summarize fills a campaign's counts, scores and progress: its selected tasks, the trials it
// plans, the trials listed, and unseen, the trials created but not yet in the cache.
func Summarize(st *evalv1.SweepRunStatus, tasks, planned int, trials []*evalv1.TaskTrial, unseen int) {
	st.Tasks = int32(tasks)
	st.Trials = Counts(trials, int32(planned))
	st.Trials.Created += int32(unseen)
	Aggregate(st, trials)
	st.Progress = fmt.Sprintf("%d/%d", FinishedTrials(st.Trials), planned)
}
