package cachetrim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// decodedTrial is a finished trial as the informer hands it over: decoded from JSON, so that
// every string has its own backing array.
func decodedTrial(t *testing.T, name string) *evalv1.TaskTrial {
	t.Helper()
	trial := evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
			Labels:          map[string]string{evalv1.LabelSweepRun: "run", evalv1.LabelTrial: name},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "sweep-operator"}},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "eval.sweep.dev/v1alpha1", Kind: "SweepRun", Name: "run"}}},
		Spec: evalv1.TaskTrialSpec{SweepRun: "run", Task: "calc", Attempt: 1, Definition: "name = \"calc\"\n[agent]\ntimeout_sec = 120\n",
			Images: evalv1.TrialImages{Agent: "tasks/calc:env", Verifier: "tasks/calc:verifier"}, Agent: evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}},
		Status: evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Score: "1", Rewards: map[string]string{"reward": "1", "bug_a": "1"},
			Conditions: []metav1.Condition{{Type: "Scored", Status: metav1.ConditionTrue, Reason: "Scored", Message: "resolved 3 of 3 bugs"}},
			Patch:      &evalv1.PatchStatus{SecretName: name + "-artifacts", SHA256: "e3b0c442"}},
	}
	b, err := json.Marshal(trial)
	if err != nil {
		t.Fatal(err)
	}
	var out evalv1.TaskTrial
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func sameBacking(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestTaskTrialInternsWithoutChanging(t *testing.T) {
	a, b := decodedTrial(t, "run-calc-1"), decodedTrial(t, "run-calc-2")
	want := a.DeepCopy()
	want.ManagedFields = nil
	if sameBacking(a.Spec.Definition, b.Spec.Definition) {
		t.Fatal("the fixture's trials already share their strings: the case checks nothing")
	}
	for _, trial := range []*evalv1.TaskTrial{a, b} {
		if _, err := TaskTrial(trial); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("interning changed the trial (-want +got):\n%s", diff)
	}
	key := func(m map[string]string, k string) string {
		for stored := range m {
			if stored == k {
				return stored
			}
		}
		t.Fatalf("no key %q", k)
		return ""
	}
	shared := map[string][2]string{
		"spec.definition":             {a.Spec.Definition, b.Spec.Definition},
		"spec.images.agent":           {a.Spec.Images.Agent, b.Spec.Images.Agent},
		"label key":                   {key(a.Labels, evalv1.LabelSweepRun), key(b.Labels, evalv1.LabelSweepRun)},
		"label value":                 {a.Labels[evalv1.LabelSweepRun], b.Labels[evalv1.LabelSweepRun]},
		"owner name":                  {a.OwnerReferences[0].Name, b.OwnerReferences[0].Name},
		"condition message":           {a.Status.Conditions[0].Message, b.Status.Conditions[0].Message},
		"reward key":                  {key(a.Status.Rewards, "bug_a"), key(b.Status.Rewards, "bug_a")},
		"reward value":                {a.Status.Rewards["reward"], b.Status.Rewards["reward"]},
		"status.patch.sha256 (ptr)":   {a.Status.Patch.SHA256, b.Status.Patch.SHA256},
		"status.phase (named string)": {string(a.Status.Phase), string(b.Status.Phase)},
	}
	for what, pair := range shared {
		if !sameBacking(pair[0], pair[1]) {
			t.Errorf("%s: the two trials hold separate copies of %q", what, pair[0])
		}
	}
}

func TestTaskTrialPassesOthersUnchanged(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "task-calc", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	out, err := TaskTrial(cm)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cm, out); diff != "" {
		t.Errorf("TaskTrial changed a ConfigMap (-want +got):\n%s", diff)
	}
}

// BenchmarkTaskTrialsHeld reports the heap that 1,000 decoded trials hold as the cache
// stores them, whole and interned: a finished oracle trial of make scale (testdata), as 100
// tasks of ten attempts each, each task with its own definition.
func BenchmarkTaskTrialsHeld(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "tasktrial.json"))
	if err != nil {
		b.Fatal(err)
	}
	var trial evalv1.TaskTrial
	if err := json.Unmarshal(raw, &trial); err != nil {
		b.Fatal(err)
	}
	tasks := make([][]byte, 100)
	for i := range tasks {
		task := trial.DeepCopy()
		task.Spec.Task = fmt.Sprintf("t%05d", i)
		task.Spec.Definition = strings.ReplaceAll(trial.Spec.Definition, trial.Spec.Task, task.Spec.Task)
		if tasks[i], err = json.Marshal(task); err != nil {
			b.Fatal(err)
		}
	}
	for _, interned := range []bool{false, true} {
		b.Run("interned="+strconv.FormatBool(interned), func(b *testing.B) {
			for range b.N {
				held := make([]*evalv1.TaskTrial, 0, 1000)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := range cap(held) {
					t := &evalv1.TaskTrial{}
					if err := json.Unmarshal(tasks[i%len(tasks)], t); err != nil {
						b.Fatal(err)
					}
					t.Name = fmt.Sprintf("%s-%d", t.Spec.Task, i/len(tasks)+1)
					if interned {
						if _, err := TaskTrial(t); err != nil {
							b.Fatal(err)
						}
					}
					held = append(held, t)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(held)), "held-B/trial")
				runtime.KeepAlive(held)
			}
		})
	}
}
