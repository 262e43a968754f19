package failure

import (
	"fmt"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// Admission is what the controller remembers of a queued stage Job's admissions
// (docs/kueue.md).
type Admission struct {
	// Admitted is the Job's status.startTime of its current admission; zero before the first
	// and while the Job waits after an eviction, as Kueue clears status.startTime then.
	Admitted time.Time
	// Evicted is when the controller last saw the queue take the admission back; Evictions
	// counts those times.
	Evicted   time.Time
	Evictions int32
}

// QueueState is how a stage's Job stands with its Kueue queue: Reason is
// reasons.WaitingForAdmission or reasons.QueueEvicted while it waits, reasons.Admitted
// while it runs.
type QueueState struct {
	Reason, Message string
}

// Waiting reports whether the Job waits for its queue.
func (q QueueState) Waiting() bool { return q.Reason != reasons.Admitted }

// Admit follows a stage Job's admissions from one observation: Kueue admits a queued Job by
// unsuspending it (the Job controller then sets status.startTime) and evicts it by
// suspending it again (the Job controller deletes its Pod, without counting it as a failure,
// and Kueue clears status.startTime). An eviction is counted once: when the Job is seen
// suspended after an admission, or, when the controller missed the suspension, when the Job
// shows another start than the admission it remembers. The Job is the same throughout: an
// eviction is no failure of the stage, so nothing is classified, retried or recreated.
func Admit(s Stage, prev Admission, queue string) (Admission, QueueState) {
	next := prev
	switch {
	case s.Suspended && !prev.Admitted.IsZero():
		next.Admitted, next.Evicted, next.Evictions = time.Time{}, s.Now, prev.Evictions+1
	case !s.Suspended && !s.JobStarted.IsZero() && !s.JobStarted.Equal(prev.Admitted):
		if !prev.Admitted.IsZero() {
			// Suspended and admitted again between two looks: its new start says so.
			next.Evicted, next.Evictions = s.JobStarted, prev.Evictions+1
		}
		next.Admitted = s.JobStarted
	}
	stage := fmt.Sprintf("the %s Job", s.Stage)
	switch {
	case !s.Suspended:
		return next, QueueState{Reason: reasons.Admitted, Message: fmt.Sprintf("%s was admitted by Kueue LocalQueue %s", stage, queue)}
	case next.Evictions > 0:
		return next, QueueState{Reason: reasons.QueueEvicted, Message: fmt.Sprintf(
			"%s was evicted by Kueue LocalQueue %s (eviction %d; preempted or its quota taken back) and waits to be admitted again: its Pod was deleted and the stage runs again from its start; not a failure, no retry used",
			stage, queue, next.Evictions)}
	}
	return next, QueueState{Reason: reasons.WaitingForAdmission, Message: fmt.Sprintf(
		"%s waits in Kueue LocalQueue %s for admission; the time there does not count toward the start timeout", stage, queue)}
}
