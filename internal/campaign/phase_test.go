package campaign

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/readiness"
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
		"every task excluded": {status: evalv1.SweepRunStatus{Exclusions: &evalv1.ExclusionsStatus{ConfigMapName: "excl", TasksExcluded: 2}},
			want: Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.NoTasksSelected,
					"the exclusion list of configmap excl leaves out every task spec.tasks selects (2): select other tasks, or apply a list that leaves some")}}},
		"missing wins over finished": {missing: []string{"a"}, planned: 4, status: evalv1.SweepRunStatus{Trials: finished, GradedTrials: 3},
			want: Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
				condition(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound, "no task ConfigMap labelled eval.sweep.dev/task for: a; apply the task catalogue")}}},
		"running": {planned: 4, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4"}, want: Decision{Phase: evalv1.SweepRunRunning, Set: []metav1.Condition{
			condition(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning, "1/4 trials finished, 2 running")}}},
		"suspended": {planned: 4, suspend: true, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4"}, want: Decision{Phase: evalv1.SweepRunSuspend, Set: []metav1.Condition{
			condition(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "spec.suspend is true: no new trials start; running trials finish")}}},
		"resumed": {planned: 4, status: evalv1.SweepRunStatus{Trials: running, Progress: "1/4", Conditions: suspendedTrue}, want: Decision{Phase: evalv1.SweepRunRunning, Set: []metav1.Condition{
			condition(evalv1.SweepRunSuspended, metav1.ConditionFalse, reasons.Resumed, "spec.suspend is false and spec.guard does not hold it"),
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

func TestStanding(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
	}
	running := evalv1.TrialCounts{Total: 4, Created: 3, Running: 1, Verifying: 1, Succeeded: 1}
	idle := evalv1.TrialCounts{Total: 4, Created: 2, Succeeded: 2}
	progressing := cond(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning, "1/4 trials finished, 2 running")
	suspended := cond(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "spec.suspend is true")
	stall := &InfrastructureStall{Trials: []string{"r-a-1", "r-b-1", "r-c-1"}, Reasons: []string{reasons.PodEvicted, reasons.ImagePullFailed, reasons.PodEvicted}}
	cases := map[string]struct {
		status evalv1.SweepRunStatus
		stall  *InfrastructureStall
		want   readiness.Verdict
	}{
		"running": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Trials: running, Conditions: []metav1.Condition{progressing}},
			want: readiness.Verdict{Standing: readiness.Reconciling, Reason: reasons.TrialsRunning, Message: "1/4 trials finished, 2 running"}},
		"running, trials failing on infrastructure": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Trials: running, Conditions: []metav1.Condition{progressing}},
			stall: stall, want: readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.InfrastructureFailing, Message: stall.Message()}},
		"succeeded": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunSucceeded, Conditions: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, "4/4 trials finished"),
			cond(evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished, "score 0.5000 over 6 bugs (1 evaluation failures)")}},
			stall: stall, want: readiness.Verdict{Standing: readiness.Ready, Reason: reasons.AllTrialsFinished, Message: "score 0.5000 over 6 bugs (1 evaluation failures)"}},
		"nothing measured": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunFailedPh, Conditions: []metav1.Condition{
			cond(evalv1.SweepRunFailed, metav1.ConditionTrue, reasons.NothingMeasured, "every trial ended without a measurement")}},
			want: readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.NothingMeasured, Message: "every trial ended without a measurement"}},
		"bug subset refused": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunFailedPh, Conditions: []metav1.Condition{
			cond(evalv1.SweepRunFailed, metav1.ConditionTrue, reasons.UnknownBugs, "spec.tasks.bugs names bug ids ...")}},
			want: readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.UnknownBugs, Message: "spec.tasks.bugs names bug ids ..."}},
		"tasks not found": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunPending, Conditions: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound, "no task ConfigMap for: a")}},
			want: readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.TasksNotFound, Message: "no task ConfigMap for: a"}},
		"suspended, started trials finishing": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunSuspend, Trials: running, Conditions: []metav1.Condition{suspended}},
			stall: stall, want: readiness.Verdict{Standing: readiness.Reconciling, Reason: reasons.Suspended, Message: "spec.suspend is true"}},
		"suspended, nothing running": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunSuspend, Trials: idle, Conditions: []metav1.Condition{suspended}},
			want: readiness.Verdict{Standing: readiness.Waiting, Reason: reasons.Suspended, Message: "spec.suspend is true"}},
		"completed by an older operator, without a reason": {status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunSucceeded},
			want: readiness.Verdict{Standing: readiness.Ready, Reason: reasons.AllTrialsFinished}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{Status: tc.status}
			if diff := cmp.Diff(tc.want, Standing(run, tc.stall)); diff != "" {
				t.Errorf("Standing (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetStanding: the three conditions carry the campaign's generation, beside its own.
func TestSetStanding(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	d := Decide(run, nil, 0)
	d.Apply(&run.Status, time.Now())
	SetStanding(run, nil)
	var got []string
	for _, c := range run.Status.Conditions {
		got = append(got, fmt.Sprintf("%s=%s %s gen %d", c.Type, c.Status, c.Reason, c.ObservedGeneration))
	}
	want := []string{"Progressing=False NoTasksSelected gen 3", "Ready=False NoTasksSelected gen 3",
		"Reconciling=False NoTasksSelected gen 3", "Stalled=True NoTasksSelected gen 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}
