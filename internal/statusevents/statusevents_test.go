package statusevents

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/readiness"
)

const (
	normal  = corev1.EventTypeNormal
	warning = corev1.EventTypeWarning
)

func TestForTrial(t *testing.T) {
	later := &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	agentRunning := evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning}
	cases := map[string]struct {
		old, new evalv1.TaskTrialStatus
		want     []Event
	}{
		"nothing changed": {old: agentRunning, new: agentRunning},
		"created": {new: evalv1.TaskTrialStatus{Phase: evalv1.TrialPending},
			want: []Event{{Type: normal, Reason: reasons.TrialRunning, Action: ActionChangePhase, Note: "phase Pending"}}},
		"agent starts": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialPending}, new: agentRunning,
			want: []Event{{Type: normal, Reason: reasons.TrialRunning, Action: ActionChangePhase, Note: "phase Pending → AgentRunning"}}},
		"infrastructure retry": {old: agentRunning,
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, InfrastructureRetries: 1, Reason: reasons.PodEvicted, Message: "evicted (retry 1 of 2)", RetryAfter: later},
			want: []Event{{Type: warning, Reason: reasons.PodEvicted, Action: ActionRetry, Note: "evicted (retry 1 of 2)"}}},
		"the same reason retried again": {
			old:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, InfrastructureRetries: 1, Reason: reasons.PodEvicted, Message: "evicted (retry 1 of 2)"},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, InfrastructureRetries: 2, Reason: reasons.PodEvicted, Message: "evicted (retry 2 of 2)"},
			want: []Event{{Type: warning, Reason: reasons.PodEvicted, Action: ActionRetry, Note: "evicted (retry 2 of 2)"}}},
		"verifier retry": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, VerifierRetries: 1, Reason: reasons.GraderFailed, Message: "crash (retry 1 of 2)"},
			want: []Event{{Type: warning, Reason: reasons.GraderFailed, Action: ActionRetry, Note: "crash (retry 1 of 2)"}}},
		"agent timed out and the verifier starts": {old: agentRunning,
			new: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Reason: reasons.AgentTimeout, Message: "ran past 60s"},
			want: []Event{{Type: normal, Reason: reasons.TrialRunning, Action: ActionChangePhase, Note: "phase AgentRunning → Verifying"},
				{Type: warning, Reason: reasons.AgentTimeout, Action: ActionRecordReason, Note: "ran past 60s"}}},
		"graded": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.Graded, Message: "score 0.5000"},
			want: []Event{{Type: normal, Reason: reasons.Graded, Action: ActionChangePhase, Note: "phase Verifying → Succeeded: score 0.5000"}}},
		"graded after an agent failure": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Reason: reasons.AgentFailed},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.AgentFailed, Message: "exit 1"},
			want: []Event{{Type: warning, Reason: reasons.AgentFailed, Action: ActionChangePhase, Note: "phase Verifying → Succeeded: exit 1"}}},
		"verifier failed": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialFailed, Reason: reasons.VerifierTimeout, Message: "ran past 60s"},
			want: []Event{{Type: warning, Reason: reasons.VerifierTimeout, Action: ActionChangePhase, Note: "phase Verifying → Failed: ran past 60s"}}},
		"retries exhausted": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, InfrastructureRetries: 2, Reason: reasons.PodEvicted},
			new:  evalv1.TaskTrialStatus{Phase: evalv1.TrialError, InfrastructureRetries: 2, Reason: reasons.PodEvicted, Message: "evicted (infrastructure retries exhausted: 2)"},
			want: []Event{{Type: warning, Reason: reasons.PodEvicted, Action: ActionChangePhase, Note: "phase AgentRunning → Error: evicted (infrastructure retries exhausted: 2)"}}},
		"invalid at once": {new: evalv1.TaskTrialStatus{Phase: evalv1.TrialError, Reason: reasons.InvalidTask, Message: "spec.definition is empty"},
			want: []Event{{Type: warning, Reason: reasons.InvalidTask, Action: ActionChangePhase, Note: "phase Error: spec.definition is empty"}}},
		"a reason cleared is no event": {old: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Reason: reasons.AgentTimeout},
			new: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ForTrial(&tc.old, &tc.new)); diff != "" {
				t.Errorf("ForTrial (-want +got):\n%s", diff)
			}
		})
	}
}

// campaign is a status in phase with the conditions readiness sets for v.
func campaign(phase evalv1.SweepRunPhase, v readiness.Verdict) evalv1.SweepRunStatus {
	st := evalv1.SweepRunStatus{Phase: phase}
	readiness.Set(&st.Conditions, 1, v)
	return st
}

func TestForSweepRun(t *testing.T) {
	running := campaign(evalv1.SweepRunRunning, readiness.Verdict{Standing: readiness.Reconciling, Reason: reasons.TrialsRunning, Message: "0/4 trials finished, 2 running"})
	stalled := campaign(evalv1.SweepRunRunning, readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.InfrastructureFailing, Message: "the last 3 ..."})
	succeeded := campaign(evalv1.SweepRunSucceeded, readiness.Verdict{Standing: readiness.Ready, Reason: reasons.AllTrialsFinished, Message: "score 0.5000 over 6 bugs"})
	retried := func(st evalv1.SweepRunStatus, token, msg string) evalv1.SweepRunStatus {
		st.Retry = &evalv1.RetryStatus{Token: token, Message: msg}
		return st
	}
	regraded := func(st evalv1.SweepRunStatus, token, msg string) evalv1.SweepRunStatus {
		st.Regrade = &evalv1.RetryStatus{Token: token, Message: msg}
		return st
	}
	suspended := campaign(evalv1.SweepRunSuspend, readiness.Verdict{Standing: readiness.Waiting, Reason: reasons.Suspended, Message: "spec.suspend is true"})
	cases := map[string]struct {
		old, new evalv1.SweepRunStatus
		want     []Event
	}{
		"no conditions yet": {new: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning}},
		"started": {new: running,
			want: []Event{{Type: normal, Reason: reasons.TrialsRunning, Action: ActionChangePhase, Note: "phase Running: 0/4 trials finished, 2 running"}}},
		"progress is no event": {old: running,
			new: campaign(evalv1.SweepRunRunning, readiness.Verdict{Standing: readiness.Reconciling, Reason: reasons.TrialsRunning, Message: "1/4 trials finished, 2 running"})},
		"waiting for tasks": {new: campaign(evalv1.SweepRunPending, readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.TasksNotFound, Message: "no task ConfigMap for: a"}),
			want: []Event{{Type: warning, Reason: reasons.TasksNotFound, Action: ActionChangePhase, Note: "phase Pending: no task ConfigMap for: a"}}},
		"succeeded": {old: running,
			new:  campaign(evalv1.SweepRunSucceeded, readiness.Verdict{Standing: readiness.Ready, Reason: reasons.AllTrialsFinished, Message: "score 0.5000 over 6 bugs"}),
			want: []Event{{Type: normal, Reason: reasons.AllTrialsFinished, Action: ActionChangePhase, Note: "phase Running → Succeeded: score 0.5000 over 6 bugs"}}},
		"nothing measured": {old: running,
			new:  campaign(evalv1.SweepRunFailedPh, readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.NothingMeasured, Message: "every trial ended without a measurement"}),
			want: []Event{{Type: warning, Reason: reasons.NothingMeasured, Action: ActionChangePhase, Note: "phase Running → Failed: every trial ended without a measurement"}}},
		"refused at creation": {
			new:  campaign(evalv1.SweepRunFailedPh, readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.UnknownBugs, Message: "spec.tasks.bugs ..."}),
			want: []Event{{Type: warning, Reason: reasons.UnknownBugs, Action: ActionChangePhase, Note: "phase Failed: spec.tasks.bugs ..."}}},
		"suspended": {old: running, new: suspended,
			want: []Event{{Type: normal, Reason: reasons.Suspended, Action: ActionChangePhase, Note: "phase Running → Suspended: spec.suspend is true"}}},
		"resumed": {old: suspended, new: running,
			want: []Event{{Type: normal, Reason: reasons.Resumed, Action: ActionChangePhase, Note: "phase Suspended → Running: 0/4 trials finished, 2 running"}}},
		"trials failing on infrastructure": {old: running, new: stalled,
			want: []Event{{Type: warning, Reason: reasons.InfrastructureFailing, Action: ActionStall, Note: "the last 3 ..."}}},
		"still stalled is no event":     {old: stalled, new: stalled},
		"no longer stalled is no event": {old: stalled, new: running},
		"a retry request leaves completion": {old: succeeded, new: retried(running, "t1", "rerunning 1 trials that ended with reason PodEvicted"),
			want: []Event{{Type: normal, Reason: reasons.Retrying, Action: ActionRetry, Note: "rerunning 1 trials that ended with reason PodEvicted"},
				{Type: normal, Reason: reasons.TrialsRunning, Action: ActionChangePhase, Note: "phase Succeeded → Running: 0/4 trials finished, 2 running"}}},
		"a retry request with nothing to rerun": {old: succeeded, new: retried(succeeded, "t1", "nothing to rerun"),
			want: []Event{{Type: normal, Reason: reasons.Retrying, Action: ActionRetry, Note: "nothing to rerun"}}},
		"a handled retry is no event": {old: retried(running, "t1", "m"), new: retried(running, "t1", "m")},
		"a regrade request leaves completion": {old: succeeded, new: regraded(running, "g1", "regrading the stored artifacts of 1 trials with the current verifier images"),
			want: []Event{{Type: normal, Reason: reasons.Retrying, Action: ActionRegrade, Note: "regrading the stored artifacts of 1 trials with the current verifier images"},
				{Type: normal, Reason: reasons.TrialsRunning, Action: ActionChangePhase, Note: "phase Succeeded → Running: 0/4 trials finished, 2 running"}}},
		"a handled regrade is no event": {old: regraded(succeeded, "g1", "m"), new: regraded(succeeded, "g1", "m")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ForSweepRun(&tc.old, &tc.new)); diff != "" {
				t.Errorf("ForSweepRun (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotesFitTheEventsAPI(t *testing.T) {
	long := strings.Repeat("é", MaxNoteBytes)
	got := ForTrial(&evalv1.TaskTrialStatus{}, &evalv1.TaskTrialStatus{Phase: evalv1.TrialError, Reason: reasons.InvalidTask, Message: long})
	if len(got) != 1 || len(got[0].Note) > MaxNoteBytes || !strings.HasSuffix(got[0].Note, "é…") {
		t.Errorf("note of %d bytes, want at most %d cut on a rune boundary: %q", len(got[0].Note), MaxNoteBytes, got[0].Note[len(got[0].Note)-8:])
	}
}
