package campaign

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// A regrade is a retry of the verifier stage only: each final trial whose agent left artifacts
// is superseded, as a retry supersedes, by a rerun of the same attempt (RerunName's numbering,
// so that FinalTrials and the score take it) whose spec.regradeOf names the trial holding the
// artifacts. Its spec is made from the task's catalogue entry as it is when the rerun is
// created, so a catalogue updated with new verifier images grades with them.

// PendingRegrade is the regrade request token the run's annotations make that its status has
// not handled yet; ok is false when there is none.
func PendingRegrade(run *evalv1.SweepRun) (token string, ok bool) {
	token = strings.TrimSpace(run.Annotations[evalv1.AnnotationRegrade])
	if token == "" || (run.Status.Regrade != nil && run.Status.Regrade.Token == token) {
		return "", false
	}
	return token, true
}

// DecideRegrade is the regrade request of a finished campaign that its status has not handled
// yet, and the trials it regrades; ok is false when there is no such request. A request made
// while the campaign runs waits for its end.
func DecideRegrade(run *evalv1.SweepRun, trials []*evalv1.TaskTrial) (token string, regrade []*evalv1.TaskTrial, ok bool) {
	token, ok = PendingRegrade(run)
	if !ok || run.Status.CompletionTime == nil {
		return "", nil, false
	}
	regrade, _ = ToRegrade(trials)
	return token, regrade, true
}

// ToRegrade are the trials a regrade grades again: each attempt's final trial whose agent
// stage left artifacts (status.patch), whatever its verdict. skipped counts the final trials
// without artifacts (the agent never finished, or the trial failed before it ran).
func ToRegrade(trials []*evalv1.TaskTrial) (regrade []*evalv1.TaskTrial, skipped int) {
	for _, t := range FinalTrials(trials) {
		if t.Status.Phase.Finished() && t.Status.Patch != nil {
			regrade = append(regrade, t)
		} else {
			skipped++
		}
	}
	return regrade, skipped
}

// Regraded reports whether a regrade replaced the trial (label eval.sweep.dev/regraded-by).
func Regraded(t *evalv1.TaskTrial) bool { return t.Labels[evalv1.LabelRegradedBy] != "" }

// BeginRegrade records a handled regrade request that regrades n trials. A campaign with
// trials to regrade leaves completion, as a retry's does (reason Retrying); one with none
// stays as it was, the request recorded with a message saying why.
func BeginRegrade(run *evalv1.SweepRun, token string, n int, now time.Time) {
	st := &run.Status
	st.Regrade = &evalv1.RetryStatus{Token: token, HandledAt: &metav1.Time{Time: now}, Trials: int32(n)}
	if n == 0 {
		st.Regrade.Message = "no final trial has stored artifacts (status.patch): nothing to regrade"
		return
	}
	st.Regrade.Message = fmt.Sprintf("regrading the stored artifacts of %d trials with the current verifier images", n)
	leaveCompletion(run, st.Regrade.Message)
}
