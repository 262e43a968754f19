// Package statuswrite decides when a reconcile's change of an object's status is worth a
// write to the API server, so that a trial costs one status write per real change of its
// state and a campaign's running aggregates do not cost one write per trial change
// (docs/scale.md).
package statuswrite

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// Trial says whether a trial's status change must be written now. A change that only
// records when a stage's main container started or its Job finished waits for the next
// change that must be written (the stage's end at the latest): both facts stay on the Pod
// and the Job, which are deleted only after the status that records the stage's end was
// written, so every reconcile until then reads them again.
func Trial(before, after *evalv1.TaskTrialStatus) bool {
	if equality.Semantic.DeepEqual(before, after) {
		return false
	}
	withoutTimes := after.DeepCopy()
	keepStageTimes(withoutTimes.Agent, before.Agent)
	keepStageTimes(withoutTimes.Verifier, before.Verifier)
	return !equality.Semantic.DeepEqual(before, withoutTimes)
}

// keepStageTimes sets the observed times of after back to before's.
func keepStageTimes(after, before *evalv1.StageStatus) {
	if after == nil || before == nil {
		return
	}
	after.ContainerStartTime, after.JobFinishTime = before.ContainerStartTime, before.JobFinishTime
}

// AggregateInterval is the least time between two writes of a campaign's status that change
// only its running counts and scores.
const AggregateInterval = time.Second

// SweepRun says whether a campaign's status change must be written now, given when this
// manager last wrote it (zero: not since it started); when not, wait is when it will be. A
// change of the phase, of a condition's type, status or reason, of the completion, or of any
// field other than the counts, scores, usage, progress and record that every trial's end
// changes (and the messages that count them) is written at once; those alone at most once
// per AggregateInterval. They are derived from the trials each reconcile, so a write held back
// loses nothing.
func SweepRun(before, after *evalv1.SweepRunStatus, lastWrite, now time.Time) (write bool, wait time.Duration) {
	if equality.Semantic.DeepEqual(before, after) {
		return false, 0
	}
	if !equality.Semantic.DeepEqual(before, withoutAggregates(after, before)) {
		return true, 0
	}
	if due := lastWrite.Add(AggregateInterval); now.Before(due) {
		return false, due.Sub(now)
	}
	return true, 0
}

// withoutAggregates is after with before's counts, scores, usage, progress, trials recorded
// and the messages of conditions whose status and reason stay.
func withoutAggregates(after, before *evalv1.SweepRunStatus) *evalv1.SweepRunStatus {
	out := after.DeepCopy()
	out.Progress, out.Trials, out.GradedTrials, out.EvaluationFailures = before.Progress, before.Trials, before.GradedTrials, before.EvaluationFailures
	out.BugsTotal, out.BugsResolved = before.BugsTotal, before.BugsResolved
	out.Score, out.ScoreIgnoringRegressions, out.MeanReward = before.Score, before.ScoreIgnoringRegressions, before.MeanReward
	out.Usage = before.Usage.DeepCopy()
	if out.Record != nil && before.Record != nil {
		out.Record.Trials = before.Record.Trials
	}
	for i := range out.Conditions {
		if old := findCondition(before.Conditions, out.Conditions[i].Type); old != nil &&
			old.Status == out.Conditions[i].Status && old.Reason == out.Conditions[i].Reason {
			out.Conditions[i].Message = old.Message
		}
	}
	return out
}

func findCondition(cs []metav1.Condition, typ string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

// LastWrites remembers when this manager last wrote each campaign's status. The zero value is
// ready; it is safe for concurrent reconciles.
type LastWrites struct {
	mu    sync.Mutex
	times map[types.NamespacedName]time.Time
}

// At is when the status of key was last written; zero when not since the manager started.
func (w *LastWrites) At(key types.NamespacedName) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.times[key]
}

// Wrote records that the status of key was written at t.
func (w *LastWrites) Wrote(key types.NamespacedName, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.times == nil {
		w.times = map[types.NamespacedName]time.Time{}
	}
	w.times[key] = t
}

// Forget drops what is remembered of a deleted object.
func (w *LastWrites) Forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.times, key)
}

// Versions remembers one resourceVersion per object: for a trial, the version its last status
// write replaced (a reconcile that reads that version reads the object from before the write,
// since the cache lags the manager's own writes, and would redo what the write recorded), or
// the version at which its Jobs were deleted. The zero value is ready; it is safe for
// concurrent reconciles.
type Versions struct {
	mu       sync.Mutex
	versions map[types.NamespacedName]string
}

// Set remembers rv for key.
func (v *Versions) Set(key types.NamespacedName, rv string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.versions == nil {
		v.versions = map[types.NamespacedName]string{}
	}
	v.versions[key] = rv
}

// Is says whether rv is the version remembered for key.
func (v *Versions) Is(key types.NamespacedName, rv string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	remembered, ok := v.versions[key]
	return ok && remembered == rv
}

// Forget drops what is remembered of a deleted object.
func (v *Versions) Forget(key types.NamespacedName) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.versions, key)
}
