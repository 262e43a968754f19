package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

func TestReadExclusions(t *testing.T) {
	valid := `{"schema":"sweep-exclusions/1","entries":[{"task":"calc","bug":"b2","reason":"flaky"}]}`
	cm := func(data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "excl", Namespace: "evals"}, Data: data}
	}
	cases := map[string]struct {
		cm          *corev1.ConfigMap
		want        exclusions.List
		wantProblem *ExclusionsProblem
		// digestOf are the bytes whose sha256 the digest is.
		digestOf string
	}{
		"valid": {cm: cm(map[string]string{exclusions.ConfigMapKey: valid}), digestOf: valid,
			want: exclusions.List{Schema: exclusions.Schema, Entries: []exclusions.Entry{{Task: "calc", Bug: "b2", Reason: exclusions.Flaky}}}},
		"not found": {wantProblem: &ExclusionsProblem{Reason: reasons.ExclusionsNotFound,
			Message: "spec.tasks.exclusions.configMapName names configmap evals/excl, which does not exist: apply the exclusion list (key exclusions.json) to namespace evals, or create a SweepRun without it"}},
		"no key": {cm: cm(map[string]string{"list.json": valid}), wantProblem: &ExclusionsProblem{Reason: reasons.ExclusionsNotFound,
			Message: "configmap evals/excl has no key exclusions.json (keys: list.json): put the exclusion list under key exclusions.json"}},
		"no keys at all": {cm: cm(nil), wantProblem: &ExclusionsProblem{Reason: reasons.ExclusionsNotFound,
			Message: "configmap evals/excl has no key exclusions.json (keys: none): put the exclusion list under key exclusions.json"}},
		"invalid entry": {cm: cm(map[string]string{exclusions.ConfigMapKey: `{"schema":"sweep-exclusions/1","entries":[{"task":"calc","reason":"slow"}]}`}),
			wantProblem: &ExclusionsProblem{Reason: reasons.InvalidExclusions,
				Message: `configmap evals/excl: entries[0].reason is "slow": use one of broken, trivial, flaky, listed; fix key exclusions.json of the ConfigMap (` + "`sweep tasks check --repeat N`" + ` writes a valid list)`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, digest, problem := ReadExclusions("evals", "excl", tc.cm)
			if d := cmp.Diff(tc.wantProblem, problem); d != "" {
				t.Fatalf("problem (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("list (-want +got):\n%s", d)
			}
			want := ""
			if tc.digestOf != "" {
				sum := sha256.Sum256([]byte(tc.digestOf))
				want = hex.EncodeToString(sum[:])
			}
			if digest != want {
				t.Errorf("digest %q, want %q", digest, want)
			}
		})
	}
}

func TestApplyExclusions(t *testing.T) {
	task := func(name, ids string) Task {
		cm := taskCM("task-"+name, name)
		if ids != "" {
			cm.Annotations[evalv1.AnnotationBugIDs] = ids
			cm.Annotations[evalv1.AnnotationBugs] = strconv.Itoa(len(strings.Split(ids, ",")))
		}
		return Task{Name: name, ConfigMap: cm}
	}
	list := exclusions.List{Schema: exclusions.Schema, Entries: []exclusions.Entry{
		{Task: "calc", Bug: "b2", Reason: exclusions.Flaky},
		{Task: "inst", Reason: exclusions.Listed},
		{Task: "text", Bug: "t1", Reason: exclusions.Trivial}, {Task: "text", Bug: "t2", Reason: exclusions.Broken}, {Task: "text", Bug: "t3", Reason: exclusions.Broken},
		{Task: "old", Bug: "x", Reason: exclusions.Broken},
		{Task: "unselected", Reason: exclusions.Broken},
	}}
	calc, inst, text, semver := task("calc", "b1,b2,b3"), task("inst", ""), task("text", "t1,t2,t3"), task("semver", "s1,s2")
	withBugs := func(t Task, bugs ...string) Task { t.Bugs = bugs; return t }
	cases := map[string]struct {
		tasks       []Task
		asked       map[string][]string
		want        []Task
		wantStatus  evalv1.ExclusionsStatus
		wantProblem *ExclusionsProblem
	}{
		"nothing applies": {tasks: []Task{semver}, want: []Task{semver}},
		"one bug of a task, a whole instance, a task whose every bug is excluded": {
			tasks: []Task{calc, inst, semver, text},
			want:  []Task{withBugs(calc, "b1", "b3"), semver},
			// inst counts its 3 bugs (annotation eval.sweep.dev/bugs); text its 3, under broken (2 of 3).
			wantStatus: evalv1.ExclusionsStatus{TasksExcluded: 2, BugsExcluded: 1 + 3 + 3, ByReason: []evalv1.ExclusionCount{
				{Reason: "broken", Tasks: 1, Bugs: 2}, {Reason: "trivial", Bugs: 1}, {Reason: "flaky", Bugs: 1}, {Reason: "listed", Tasks: 1, Bugs: 3}}},
		},
		"a subset: only the bugs asked count": {
			tasks: []Task{calc, text}, asked: map[string][]string{"calc": {"b3", "b2", "b3"}, "text": {"t1"}},
			want:       []Task{withBugs(calc, "b3")},
			wantStatus: evalv1.ExclusionsStatus{TasksExcluded: 1, BugsExcluded: 2, ByReason: []evalv1.ExclusionCount{{Reason: "trivial", Tasks: 1, Bugs: 1}, {Reason: "flaky", Bugs: 1}}},
		},
		"a subset the list does not touch stays the subset": {
			tasks: []Task{semver}, asked: map[string][]string{"semver": {"s2"}}, want: []Task{withBugs(semver, "s2")},
		},
		"bug entries for a task that lists no bug ids": {
			tasks: []Task{calc, task("old", "")},
			wantProblem: &ExclusionsProblem{Reason: reasons.InvalidExclusions,
				Message: "the list excludes bugs of task old, but its configmap task-old lists no bug ids (annotation eval.sweep.dev/bug-ids), so they cannot be left out: bundle the catalogue again with `sweep tasks bundle`, or exclude the whole task (an entry without bug)"},
		},
		"... unless the campaign grades a subset of it": {
			tasks: []Task{task("old", "")}, asked: map[string][]string{"old": {"x", "y"}},
			want:       []Task{withBugs(task("old", ""), "y")},
			wantStatus: evalv1.ExclusionsStatus{BugsExcluded: 1, ByReason: []evalv1.ExclusionCount{{Reason: "broken", Bugs: 1}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, st, problem := ApplyExclusions(list, tc.tasks, tc.asked)
			if d := cmp.Diff(tc.wantProblem, problem); d != "" {
				t.Fatalf("problem (-want +got):\n%s", d)
			}
			if problem != nil {
				return
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("tasks (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantStatus, st); d != "" {
				t.Errorf("status (-want +got):\n%s", d)
			}
		})
	}
}

// The bugs left reach the trial as a subset does: spec.bugs and bugsTotal, so n_subtasks and
// the score's denominator count only them.
func TestTrialSpecBugsLeft(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r"}}
	task := Task{Name: "calc", ConfigMap: taskCM("task-calc", "calc"), Bugs: []string{"b1", "b3"}}
	spec := TrialSpec(run, task, 1)
	if d := cmp.Diff([]string{"b1", "b3"}, spec.Bugs); d != "" || spec.BugsTotal != 2 {
		t.Errorf("bugs %v (diff %s), bugsTotal %d, want b1, b3 and 2", spec.Bugs, d, spec.BugsTotal)
	}
}

func TestExclusionsProblemDecision(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "evals", Generation: 2}}
	got := (&ExclusionsProblem{Reason: reasons.ExclusionsNotFound, Message: "it is gone"}).Decision(run)
	want := Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{{Type: evalv1.SweepRunProgressing, Status: metav1.ConditionFalse,
		Reason: reasons.ExclusionsNotFound, Message: "sweeprun evals/r: it is gone", ObservedGeneration: 2}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
