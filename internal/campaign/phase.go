package campaign

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/readiness"
)

// TaskRecheck is how often a campaign waiting for its task ConfigMaps looks again; applying
// a task ConfigMap also wakes it.
const TaskRecheck = 30 * time.Second

// Decision is a campaign's phase and conditions after one reconcile.
type Decision struct {
	Phase evalv1.SweepRunPhase
	// Set are the conditions to set, in order; Remove the condition types to drop first.
	Set    []metav1.Condition
	Remove []string
	// WaitForTasks: the campaign cannot plan its trials until its tasks exist; it creates
	// none and looks again after TaskRecheck.
	WaitForTasks bool
	// Complete: every trial finished; the campaign records its completion time.
	Complete bool
}

// Decide is the phase and conditions of run, whose status counts, scores and progress are
// already summarised (Summarize), given the task names it asks for that are missing and the
// number of trials it plans. Trials created in the same reconcile do not change it: they are
// neither finished nor running yet.
func Decide(run *evalv1.SweepRun, missing []string, planned int) Decision {
	st := &run.Status
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: run.Generation}
	}
	switch {
	case len(missing) > 0:
		return Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound,
				fmt.Sprintf("no task ConfigMap labelled %s for: %s; apply the task catalogue", evalv1.LabelTask, strings.Join(missing, ", "))),
		}}
	case planned == 0 && st.Exclusions != nil && st.Exclusions.TasksExcluded > 0:
		return Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.NoTasksSelected,
				fmt.Sprintf("the exclusion list of configmap %s leaves out every task spec.tasks selects (%d): select other tasks, or apply a list that leaves some", st.Exclusions.ConfigMapName, st.Exclusions.TasksExcluded)),
		}}
	case planned == 0:
		return Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.NoTasksSelected,
				"spec.tasks selects no task ConfigMap in this namespace; apply the task catalogue or fix the selection"),
		}}
	case int(FinishedTrials(st.Trials)) == planned:
		d := Decision{Complete: true, Remove: []string{evalv1.SweepRunSuspended}, Set: []metav1.Condition{
			cond(evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.AllTrialsFinished, st.Progress+" trials finished"),
		}}
		if st.GradedTrials == 0 {
			d.Phase = evalv1.SweepRunFailedPh
			d.Set = append(d.Set, cond(evalv1.SweepRunFailed, metav1.ConditionTrue, reasons.NothingMeasured,
				fmt.Sprintf("every trial ended without a measurement (%d evaluation failures); see the trials' reasons", st.EvaluationFailures)))
		} else {
			d.Phase = evalv1.SweepRunSucceeded
			msg := fmt.Sprintf("score %s over %d bugs (%d evaluation failures)", st.Score, st.BugsTotal, st.EvaluationFailures)
			if st.Budget != nil {
				msg += "; stopped early: " + st.Budget.Message
			}
			d.Set = append(d.Set, cond(evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished, msg))
		}
		return d
	case run.Spec.Suspend:
		return Decision{Phase: evalv1.SweepRunSuspend, Set: []metav1.Condition{
			cond(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended, "spec.suspend is true: no new trials start; running trials finish"),
		}}
	case st.Guard.Holds():
		return Decision{Phase: evalv1.SweepRunSuspend, Set: []metav1.Condition{
			cond(evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.InfrastructureFailing, st.Guard.Message),
		}}
	}
	d := Decision{Phase: evalv1.SweepRunRunning}
	if meta.IsStatusConditionTrue(st.Conditions, evalv1.SweepRunSuspended) {
		d.Set = append(d.Set, cond(evalv1.SweepRunSuspended, metav1.ConditionFalse, reasons.Resumed, "spec.suspend is false and spec.guard does not hold it"))
	}
	d.Set = append(d.Set, cond(evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning,
		fmt.Sprintf("%s trials finished, %d running", st.Progress, st.Trials.Running+st.Trials.Verifying)))
	return d
}

// Apply writes the decision into the status; now is the completion time of a campaign that
// completes.
func (d Decision) Apply(st *evalv1.SweepRunStatus, now time.Time) {
	st.Phase = d.Phase
	for _, t := range d.Remove {
		meta.RemoveStatusCondition(&st.Conditions, t)
	}
	for _, c := range d.Set {
		meta.SetStatusCondition(&st.Conditions, c)
	}
	if d.Complete {
		st.CompletionTime = &metav1.Time{Time: now}
	}
}

// Standing is the campaign's Ready, Reconciling and Stalled verdict, read from its phase and
// conditions once the decision is applied (so that a campaign completed by an older operator
// gets them too), and stall, its infrastructure stall if it has one. Ready: every trial ended
// (Error trials included) and the score is final. Stalled: its tasks are missing, its bug
// subsets were refused, no trial was measured, or the trials keep failing on infrastructure.
// Suspended: Ready false with reason Suspended, Reconciling while started trials finish.
// Otherwise it is Reconciling while trials run.
func Standing(run *evalv1.SweepRun, stall *InfrastructureStall) readiness.Verdict {
	st := &run.Status
	from := func(standing readiness.Standing, typ, fallback string) readiness.Verdict {
		v := readiness.Verdict{Standing: standing, Reason: fallback}
		if c := meta.FindStatusCondition(st.Conditions, typ); c != nil && c.Reason != "" {
			v.Reason, v.Message = c.Reason, c.Message
		}
		return v
	}
	switch st.Phase {
	case evalv1.SweepRunSucceeded:
		return from(readiness.Ready, evalv1.SweepRunComplete, reasons.AllTrialsFinished)
	case evalv1.SweepRunFailedPh:
		return from(readiness.Stalled, evalv1.SweepRunFailed, reasons.NothingMeasured)
	case evalv1.SweepRunPending:
		return from(readiness.Stalled, evalv1.SweepRunProgressing, reasons.TasksNotFound)
	case evalv1.SweepRunSuspend:
		// A campaign the guard suspended cannot progress until someone fixes the cluster.
		if st.Guard.Holds() && !run.Spec.Suspend {
			return from(readiness.Stalled, evalv1.SweepRunSuspended, reasons.InfrastructureFailing)
		}
		if Unfinished(st.Trials) > 0 {
			return from(readiness.Reconciling, evalv1.SweepRunSuspended, reasons.Suspended)
		}
		return from(readiness.Waiting, evalv1.SweepRunSuspended, reasons.Suspended)
	}
	if stall != nil {
		return readiness.Verdict{Standing: readiness.Stalled, Reason: reasons.InfrastructureFailing, Message: stall.Message()}
	}
	return from(readiness.Reconciling, evalv1.SweepRunProgressing, reasons.TrialsRunning)
}

// SetStanding writes the campaign's Standing into its conditions.
func SetStanding(run *evalv1.SweepRun, stall *InfrastructureStall) {
	readiness.Set(&run.Status.Conditions, run.Generation, Standing(run, stall))
}
