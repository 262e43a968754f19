package readiness

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func TestSet(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reasons.TrialsRunning, Message: "m", ObservedGeneration: 4}
	}
	const f, tr = metav1.ConditionFalse, metav1.ConditionTrue
	cases := map[Standing][]metav1.Condition{
		Reconciling: {cond(evalv1.ConditionReady, f), cond(evalv1.ConditionReconciling, tr), cond(evalv1.ConditionStalled, f)},
		Ready:       {cond(evalv1.ConditionReady, tr), cond(evalv1.ConditionReconciling, f), cond(evalv1.ConditionStalled, f)},
		Stalled:     {cond(evalv1.ConditionReady, f), cond(evalv1.ConditionReconciling, f), cond(evalv1.ConditionStalled, tr)},
		Waiting:     {cond(evalv1.ConditionReady, f), cond(evalv1.ConditionReconciling, f), cond(evalv1.ConditionStalled, f)},
	}
	for standing, want := range cases {
		other := metav1.Condition{Type: evalv1.SweepRunComplete, Status: tr, Reason: reasons.AllTrialsFinished}
		conds := []metav1.Condition{other}
		Set(&conds, 4, Verdict{Standing: standing, Reason: reasons.TrialsRunning, Message: "m"})
		for i := range conds {
			conds[i].LastTransitionTime = metav1.Time{}
		}
		if diff := cmp.Diff(append([]metav1.Condition{other}, want...), conds); diff != "" {
			t.Errorf("Set(%d) (-want +got):\n%s", standing, diff)
		}
	}
}

func TestTrial(t *testing.T) {
	later := &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cases := map[string]struct {
		status evalv1.TaskTrialStatus
		want   Verdict
	}{
		"new": {want: Verdict{Standing: Reconciling, Reason: reasons.TrialRunning, Message: "phase Pending"}},
		"verifying": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Reason: reasons.AgentTimeout, Message: "slow"},
			want: Verdict{Standing: Reconciling, Reason: reasons.TrialRunning, Message: "phase Verifying"}},
		"waiting to retry": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Reason: reasons.PodEvicted, Message: "evicted (retry 1 of 2)", RetryAfter: later},
			want: Verdict{Standing: Reconciling, Reason: reasons.PodEvicted, Message: "evicted (retry 1 of 2)"}},
		"graded": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.Graded, Message: "score 0.5000"},
			want: Verdict{Standing: Ready, Reason: reasons.Graded, Message: "score 0.5000"}},
		"graded after an agent timeout": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.AgentTimeout, Message: "slow"},
			want: Verdict{Standing: Ready, Reason: reasons.AgentTimeout, Message: "slow"}},
		"failed": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialFailed, Reason: reasons.GraderFailed, Message: "crash"},
			want: Verdict{Standing: Stalled, Reason: reasons.GraderFailed, Message: "crash"}},
		"error": {status: evalv1.TaskTrialStatus{Phase: evalv1.TrialError, Reason: reasons.ImagePullFailed, Message: "no image"},
			want: Verdict{Standing: Stalled, Reason: reasons.ImagePullFailed, Message: "no image"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Trial(&tc.status)); diff != "" {
				t.Errorf("Trial (-want +got):\n%s", diff)
			}
		})
	}
}
