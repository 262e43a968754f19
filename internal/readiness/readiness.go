// Package readiness decides the Ready, Reconciling and Stalled conditions of SweepRuns and
// TaskTrials, the ones kstatus (sigs.k8s.io/cli-utils/pkg/kstatus) reads: it computes an
// object's status as Failed when Stalled is True, InProgress when Reconciling is True or Ready
// is False, and Current when Ready is True. All three are always present, each with the
// object's generation, so that a tool never mistakes a condition not yet written for a normal
// one; at most one is True.
package readiness

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// Standing is which of the three conditions is True.
type Standing int

const (
	// Reconciling: the object is still being worked on.
	Reconciling Standing = iota
	// Ready: the object ended and its result is final.
	Ready
	// Stalled: the object cannot progress without someone acting.
	Stalled
	// Waiting: none is True, Ready False: the object waits for its user (a suspended
	// campaign with nothing running).
	Waiting
)

// Verdict is a standing with the one reason and message all three conditions carry.
type Verdict struct {
	Standing Standing
	Reason   string
	Message  string
}

// Set writes the three conditions of v into conds, observed at generation.
func Set(conds *[]metav1.Condition, generation int64, v Verdict) {
	for _, c := range []struct {
		typ      string
		standing Standing
	}{{evalv1.ConditionReady, Ready}, {evalv1.ConditionReconciling, Reconciling}, {evalv1.ConditionStalled, Stalled}} {
		status := metav1.ConditionFalse
		if v.Standing == c.standing {
			status = metav1.ConditionTrue
		}
		meta.SetStatusCondition(conds, metav1.Condition{Type: c.typ, Status: status, Reason: v.Reason,
			Message: v.Message, ObservedGeneration: generation})
	}
}

// Trial is a trial's standing: Reconciling until it ends (with its retry's reason while it
// waits to retry a stage), then Ready when it was graded and Stalled when it ended Failed or
// Error, unmeasured; the reason is the trial's own.
func Trial(st *evalv1.TaskTrialStatus) Verdict {
	switch st.Phase {
	case evalv1.TrialSucceeded:
		return Verdict{Standing: Ready, Reason: st.Reason, Message: st.Message}
	case evalv1.TrialFailed, evalv1.TrialError:
		return Verdict{Standing: Stalled, Reason: st.Reason, Message: st.Message}
	}
	if st.RetryAfter != nil && st.Reason != "" {
		return Verdict{Standing: Reconciling, Reason: st.Reason, Message: st.Message}
	}
	phase := st.Phase
	if phase == "" {
		phase = evalv1.TrialPending
	}
	return Verdict{Standing: Reconciling, Reason: reasons.TrialRunning, Message: "phase " + string(phase)}
}
