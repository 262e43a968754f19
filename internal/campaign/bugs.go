package campaign

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// BugRefusal is why a campaign's bug subsets (spec.tasks.bugs) cannot be graded: the
// SweepRun fails before it creates any trial.
type BugRefusal struct {
	Reason, Message string
}

// CheckBugs refuses a campaign's spec.tasks.bugs for the selected tasks when an entry is empty, names
// ids the task's ConfigMap does not list (AnnotationBugIDs), or names a task graded by its own
// tests/test.sh whose ConfigMap lists none: a subset reaches test.sh only through its
// tests/swesweep_eval.json, as SWE-sweep's harness passes it. A built-in grader's task without
// the annotation (catalogued before it existed, a SWE-bench instance) is left to the grader,
// which refuses what it cannot grade. The refusal names every entry at fault; its reason is
// the first one's, in task order. nil means every subset can be graded. `sweep eval --bugs`
// asks the same before it creates the SweepRun.
func CheckBugs(bugs map[string][]string, tasks []Task) *BugRefusal {
	var refusal *BugRefusal
	var problems []string
	for _, t := range tasks {
		ids, ok := bugs[t.Name]
		if !ok {
			continue
		}
		reason, problem := bugProblem(t, ids)
		if reason == "" {
			continue
		}
		if refusal == nil {
			refusal = &BugRefusal{Reason: reason}
		}
		problems = append(problems, problem)
	}
	if refusal != nil {
		refusal.Message = strings.Join(problems, "; ")
	}
	return refusal
}

// bugProblem is what is wrong with task t's entry ids, as a reason and a message naming the
// field and the fix; no reason when nothing is.
func bugProblem(t Task, ids []string) (reason, message string) {
	field := fmt.Sprintf("spec.tasks.bugs[%q]", t.Name)
	cm := t.ConfigMap
	listed, annotated := cm.Annotations[evalv1.AnnotationBugIDs]
	switch {
	case len(ids) == 0:
		return reasons.EmptyBugSubset, fmt.Sprintf("%s is empty: name at least one bug id of task %s, or leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun",
			field, t.Name)
	case annotated:
		known := BugIDs(cm)
		if _, unknown := sweepbundle.Subset(ids, known); len(unknown) > 0 {
			return reasons.UnknownBugs, fmt.Sprintf("%s names bug ids that task %s does not have: %s; its bugs are %s (annotation %s of configmap %s): use ids among them, in a new SweepRun",
				field, t.Name, strings.Join(unknown, ", "), orNone(listed), evalv1.AnnotationBugIDs, cm.Name)
		}
	case cm.Annotations[evalv1.AnnotationGrader] == podcontract.GraderTestScript:
		return reasons.BugSubsetUnsupported, fmt.Sprintf("%s: task %s is graded by its own tests/test.sh, which takes a bug subset only through tests/%s, and configmap %s has no %s annotation listing its bugs: "+
			"if the task has that file, bundle the catalogue again with `sweep tasks bundle`; else leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun",
			field, t.Name, sweepbundle.File, cm.Name, evalv1.AnnotationBugIDs)
	}
	return "", ""
}

// BugIDs are the bug ids a task ConfigMap lists in AnnotationBugIDs.
func BugIDs(cm *corev1.ConfigMap) []string {
	listed := cm.Annotations[evalv1.AnnotationBugIDs]
	if listed == "" {
		return nil
	}
	return strings.Split(listed, ",")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Decision is the phase and conditions of campaign run whose bug subsets were refused: Failed
// and complete, before any trial, the message naming the SweepRun.
func (r *BugRefusal) Decision(run *evalv1.SweepRun) Decision {
	msg := fmt.Sprintf("sweeprun %s/%s: %s", run.Namespace, run.Name, r.Message)
	cond := func(typ string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: r.Reason, Message: msg, ObservedGeneration: run.Generation}
	}
	return Decision{Phase: evalv1.SweepRunFailedPh, Complete: true,
		Set: []metav1.Condition{cond(evalv1.SweepRunProgressing, metav1.ConditionFalse), cond(evalv1.SweepRunFailed, metav1.ConditionTrue)}}
}
