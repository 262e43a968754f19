package campaign

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// CheckBugs refuses, before any trial, a subset the task cannot take: an empty one, ids the
// task's ConfigMap does not list, or a test.sh task that lists none. What a built-in grader
// decides itself, and tasks without an entry, pass.
func TestCheckBugs(t *testing.T) {
	task := func(name string, edit func(*corev1.ConfigMap)) Task {
		cm := taskCM("t-"+name, name)
		if edit != nil {
			edit(cm)
		}
		return Task{Name: name, ConfigMap: cm}
	}
	listed := func(ids string) func(*corev1.ConfigMap) {
		return func(cm *corev1.ConfigMap) { cm.Annotations[evalv1.AnnotationBugIDs] = ids }
	}
	testScript := func(ids string, annotated bool) func(*corev1.ConfigMap) {
		return func(cm *corev1.ConfigMap) {
			delete(cm.Annotations, evalv1.AnnotationGrader)
			if annotated {
				cm.Annotations[evalv1.AnnotationBugIDs] = ids
			}
		}
	}
	unsupported := func(name string) string {
		return `spec.tasks.bugs["` + name + `"]: task ` + name + ` is graded by its own tests/test.sh, which takes a bug subset only through tests/swesweep_eval.json, and configmap t-` + name +
			" has no eval.sweep.dev/bug-ids annotation listing its bugs: if the task has that file, bundle the catalogue again with `sweep tasks bundle`; else leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun"
	}
	cases := map[string]struct {
		tasks []Task
		bugs  map[string][]string
		want  *BugRefusal
	}{
		"no subsets":                   {tasks: []Task{task("calc", testScript("", false))}},
		"an entry for another task":    {tasks: []Task{task("calc", testScript("", false))}, bugs: map[string][]string{"dates": {"x"}}},
		"test.sh task, known ids":      {tasks: []Task{task("calc", testScript("b1,b2,b3", true))}, bugs: map[string][]string{"calc": {"b3", "b1", "b3"}}},
		"built-in grader, known ids":   {tasks: []Task{task("calc", listed("b1,b2"))}, bugs: map[string][]string{"calc": {"b2"}}},
		"built-in grader, not listed":  {tasks: []Task{task("calc", nil)}, bugs: map[string][]string{"calc": {"anything"}}},
		"SWE-bench instance, unlisted": {tasks: []Task{task("inst", func(cm *corev1.ConfigMap) { cm.Annotations[evalv1.AnnotationGrader] = "swebench" })}, bugs: map[string][]string{"inst": {"b1"}}},
		"empty list": {tasks: []Task{task("calc", listed("b1"))}, bugs: map[string][]string{"calc": {}},
			want: &BugRefusal{Reason: reasons.EmptyBugSubset, Message: `spec.tasks.bugs["calc"] is empty: name at least one bug id of task calc, or leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun`}},
		"empty list, test.sh task unlisted": {tasks: []Task{task("calc", testScript("", false))}, bugs: map[string][]string{"calc": nil},
			want: &BugRefusal{Reason: reasons.EmptyBugSubset, Message: `spec.tasks.bugs["calc"] is empty: name at least one bug id of task calc, or leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun`}},
		"unknown ids": {tasks: []Task{task("calc", testScript("b1,b2", true))}, bugs: map[string][]string{"calc": {"zz", "b1", "aa", "zz"}},
			want: &BugRefusal{Reason: reasons.UnknownBugs, Message: `spec.tasks.bugs["calc"] names bug ids that task calc does not have: aa, zz; its bugs are b1,b2 (annotation eval.sweep.dev/bug-ids of configmap t-calc): use ids among them, in a new SweepRun`}},
		"unknown ids, built-in grader": {tasks: []Task{task("calc", listed("b1"))}, bugs: map[string][]string{"calc": {"b9"}},
			want: &BugRefusal{Reason: reasons.UnknownBugs, Message: `spec.tasks.bugs["calc"] names bug ids that task calc does not have: b9; its bugs are b1 (annotation eval.sweep.dev/bug-ids of configmap t-calc): use ids among them, in a new SweepRun`}},
		"a bundle with no bugs": {tasks: []Task{task("calc", testScript("", true))}, bugs: map[string][]string{"calc": {"b1"}},
			want: &BugRefusal{Reason: reasons.UnknownBugs, Message: `spec.tasks.bugs["calc"] names bug ids that task calc does not have: b1; its bugs are none (annotation eval.sweep.dev/bug-ids of configmap t-calc): use ids among them, in a new SweepRun`}},
		"test.sh task without the annotation": {tasks: []Task{task("calc", testScript("", false))}, bugs: map[string][]string{"calc": {"b1"}},
			want: &BugRefusal{Reason: reasons.BugSubsetUnsupported, Message: unsupported("calc")}},
		"every entry at fault, the first one's reason": {
			tasks: []Task{task("a", testScript("", false)), task("b", listed("b1")), task("c", listed("b1"))},
			bugs:  map[string][]string{"a": {"b1"}, "b": {"b1"}, "c": {}},
			want: &BugRefusal{Reason: reasons.BugSubsetUnsupported, Message: unsupported("a") +
				`; spec.tasks.bugs["c"] is empty: name at least one bug id of task c, or leave the task out of spec.tasks.bugs to grade all its bugs, in a new SweepRun`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CheckBugs(tc.bugs, tc.tasks)); diff != "" {
				t.Errorf("CheckBugs (-want +got):\n%s", diff)
			}
		})
	}
}

// A refused campaign fails at once and completes, with the reason on both conditions.
func TestBugRefusalDecision(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "run", Generation: 3}}
	got := (&BugRefusal{Reason: reasons.UnknownBugs, Message: "m"}).Decision(run)
	want := Decision{Phase: evalv1.SweepRunFailedPh, Complete: true, Set: []metav1.Condition{
		{Type: evalv1.SweepRunProgressing, Status: metav1.ConditionFalse, Reason: reasons.UnknownBugs, Message: "sweeprun ns/run: m", ObservedGeneration: 3},
		{Type: evalv1.SweepRunFailed, Status: metav1.ConditionTrue, Reason: reasons.UnknownBugs, Message: "sweeprun ns/run: m", ObservedGeneration: 3},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decision (-want +got):\n%s", diff)
	}
}

func TestBugIDs(t *testing.T) {
	for listed, want := range map[string][]string{"": nil, "a": {"a"}, "b,a,c": {"b", "a", "c"}} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{evalv1.AnnotationBugIDs: listed}}}
		if got := BugIDs(cm); !cmp.Equal(want, got) {
			t.Errorf("BugIDs(%q) = %q, want %q", listed, got, want)
		}
	}
}
