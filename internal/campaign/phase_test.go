package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func condition(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: 3}
}

func TestDecide(t *testing.T) {
	suspendedTrue := []metav1.Condition{condition(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "")}
	running := evalv1.TrialCounts{Total: 4, Created: 3, Running: 1, Verifying: 1, Succeeded: 1}
	finished := evalv1.TrialCounts{Total: 4, Created: 4, Succeeded: 3, Error: 1}
	cases := map[string]struct {
		missing []string
		planned int
		suspend bool
		status  evalv1.SweepRunStatus
		want    Decision
	}{
		"tasks missing": {missing: []string{"a", "b"}, planned: 2, want: Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
			condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound, "no task ConfigMap labelled eval.sweep.dev/task for: a, b; apply the task catalogue")}}},
		"no tasks selected": {want: Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
			condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.NoTasksSelected,
				"spec.tasks selects no task ConfigMap in this namespace; apply the task catalogue or fix the selection")}}},
		"missing wins over finished": {missing: []string{"a"}, planned: 4, status: evalv1.SweepRunStatus{Trials: finished, GradedTrials: 3},
			want: Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound, "no task ConfigMap labelled eval.sweep.dev/task for: a; apply the task catalogue")}}},
		"running": {planned: 4, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4"}, want: Decision{Phase: evalv1.SweepRunRunning, Set: []metav1.Condition{
			condition(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning, "1/4 trials finished, 2 running")}}},
		"suspended": {planned: 4, suspend: true, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4"}, want: Decision{Phase: evalv1.SweepRunSuspend, Set: []metav1.Condition{
			condition(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "spec.suspend is true: no new trials start; running trials finish")}}},
		"resumed": {planned: 4, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4", Conditions: suspendedTrue}, want: Decision{Phase: evalv1.SweepRunRunning, Set: []metav1.Condition{
			condition(evalv1.SweepRunSuspended, metav1.ConditionFalse, reasons.Resumed, "spec.suspend is false"),
			condition(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning, "1/4 trials finished, 2 running")}}},
		"succeeded": {planned: 4, status: evalv1.SweepRunStatus{Trials: finished, Progress: "4/4", GradedTrials: 3, EvaluationFailures: 1, Score: "0.5000", BugsTotal: 6},
			want: Decision{Phase: evalv1.SweepRunSucceeded, Complete: true, Remove: []string{evalv1.SweepRunSuspended}, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, "4/4 trials finished"),
				condition(evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished, "score 0.5000 over 6 bugs (1 evaluation failures)")}}},
		"finished while suspended still completes": {planned: 4, suspend: true, status: evalv1.SweepRunStatus{Trials: finished, Progress: "4/4", GradedTrials: 3, Score: "1.0000", BugsTotal: 3},
			want: Decision{Phase: evalv1.SweepRunSucceeded, Complete: true, Remove: []string{evalv1.SweepRunSuspended}, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, "4/4 trials finished"),
				condition(evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished, "score 1.0000 over 3 bugs (0 evaluation failures)")}}},
		"nothing measured": {planned: 4, status: evalv1.SweepRunStatus{Trials: evalv1.TrialCounts{Total: 4, Created: 4, Failed: 2, Error: 2}, Progress: "4/4", EvaluationFailures: 4},
			want: Decision{Phase: evalv1.SweepRunFailedPh, Complete: true, Remove: []string{evalv1.SweepRunSuspended}, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, "4/4 trials finished"),
				condition(evalv1.SweepRunFailed, metav1.ConditionTrue, reasons.NothingMeasured, "every trial ended without a measurement (4 evaluation failures); see the trials' reasons")}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Spec: evalv1.SweepRunSpec{Suspend: tc.suspend}, Status: tc.status}
			if diff := cmp.Diff(tc.want, Decide(run, tc.missing, tc.planned)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecisionApply(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	progressing := condition(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning, "r")
	suspended := condition(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "s")
	done := condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, "d")
	complete := condition(evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished, "c")
	cases := map[string]struct {
		before   []metav1.Condition
		decision Decision
		want     evalv1.SweepRunStatus
	}{
		"sets in order": {decision: Decision{Phase: evalv1.SweepRunRunning, Set: []metav1.Condition{suspended, progressing}},
			want: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Conditions: []metav1.Condition{suspended, progressing}}},
		"complete removes, replaces and records the time": {before: []metav1.Condition{progressing, suspended},
			decision: Decision{Phase: evalv1.SweepRunSucceeded, Complete: true, Remove: []string{evalv1.SweepRunSuspended}, Set: []metav1.Condition{done, complete}},
			want:     evalv1.SweepRunStatus{Phase: evalv1.SweepRunSucceeded, Conditions: []metav1.Condition{done, complete}, CompletionTime: &metav1.Time{Time: now}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := evalv1.SweepRunStatus{Conditions: tc.before}
			tc.decision.Apply(&st, now)
			// SetStatusCondition stamps new conditions with the current time; compare the rest.
			for i := range st.Conditions {
				st.Conditions[i].LastTransitionTime = metav1.Time{}
			}
			if diff := cmp.Diff(tc.want, st); diff != "" {
				t.Errorf("Apply (-want +got):\n%s", diff)
			}
		})
	}
}
