package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// TasksDir is the test task catalogue's source: Harbor task directories demo (two bugs, a
// solution patch, images built from the task) and hello (a test.sh task on a public image).
func TasksDir() string {
	return filepath.Join(RepoRoot(), "internal", "cli", "tasks", "testdata", "tasks")
}

// RunWrapper builds a SweepRun fluently: MakeRun(ns, "run1").Tasks("a", "b").Create(t, cl).
type RunWrapper struct{ evalv1.SweepRun }

// MakeRun is a SweepRun of the nop agent, one attempt at a time.
func MakeRun(ns, name string) *RunWrapper {
	return &RunWrapper{evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: evalv1.SweepRunSpec{
			Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}},
			// The Go types send zeros, which the CRD's defaults do not replace.
			Attempts: 1, Parallelism: 1,
		},
	}}
}

// Tasks selects the tasks by name.
func (w *RunWrapper) Tasks(names ...string) *RunWrapper {
	w.Spec.Tasks = evalv1.TaskSelection{Names: names}
	return w
}

func (w *RunWrapper) Obj() *evalv1.SweepRun { return &w.SweepRun }

func (w *RunWrapper) Create(t testing.TB, cl client.Client) *evalv1.SweepRun {
	t.Helper()
	if err := cl.Create(context.Background(), &w.SweepRun); err != nil {
		t.Fatal(err)
	}
	return &w.SweepRun
}

// TrialWrapper builds a campaign's trial and the status a test gives it, playing the trial
// controller: MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(r).Create(t, cl).
type TrialWrapper struct{ evalv1.TaskTrial }

// MakeTrial is attempt of task in run, as the campaign controller creates it.
func MakeTrial(run *evalv1.SweepRun, task string, attempt int32) *TrialWrapper {
	return &TrialWrapper{evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, task, attempt),
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: task}},
		Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: task, Attempt: attempt,
			Images: evalv1.TrialImages{Agent: "reg/" + task + "-env:1", Verifier: "reg/" + task + "-verifier:1"},
			Agent:  run.Spec.Agent},
	}}
}

func (w *TrialWrapper) Phase(p evalv1.TrialPhase) *TrialWrapper {
	w.Status.Phase = p
	return w
}

// Reason is why the trial ended as it did.
func (w *TrialWrapper) Reason(reason, message string) *TrialWrapper {
	w.Status.Reason, w.Status.Message = reason, message
	return w
}

func (w *TrialWrapper) Rewards(r map[string]string) *TrialWrapper {
	w.Status.Rewards = r
	return w
}

func (w *TrialWrapper) Obj() *evalv1.TaskTrial { return &w.TaskTrial }

// Create creates the trial, then writes its status.
func (w *TrialWrapper) Create(t testing.TB, cl client.Client) *evalv1.TaskTrial {
	t.Helper()
	ctx := context.Background()
	status := w.Status
	if err := cl.Create(ctx, &w.TaskTrial); err != nil {
		t.Fatal(err)
	}
	w.Status = status
	if err := cl.Status().Update(ctx, &w.TaskTrial); err != nil {
		t.Fatal(err)
	}
	return &w.TaskTrial
}

// FinishWithEval stores the verifier's eval.json and reward.json, then creates the trial, in
// the trial controller's order.
func (w *TrialWrapper) FinishWithEval(t testing.TB, cl client.Client, evalJSON string) *evalv1.TaskTrial {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: podbuild.ResultsSecretName(w.Name)},
		Data: map[string][]byte{podcontract.RecordEval: []byte(evalJSON), reward.FileJSON: RewardJSON(t, w.Status.Rewards)}}
	if err := cl.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	return w.Create(t, cl)
}

// SweepRewards are the rewards a SWE-sweep verifier reports, as the trial status holds them.
func SweepRewards(bugs, resolved int, visibleOK bool) map[string]string {
	r := map[string]string{reward.KeySubtasks: strconv.Itoa(bugs), reward.KeyResolved: strconv.Itoa(resolved), reward.KeyVisibleOK: "1", reward.KeyGraderFailed: "0"}
	r[reward.KeyReward] = scoring.Format(float64(resolved) / float64(bugs))
	if !visibleOK {
		r[reward.KeyVisibleOK], r[reward.KeyReward] = "0", "0"
	}
	return r
}

// CreateFinishedRun creates a campaign whose trials cover every branch of the score: several
// attempts with a regression (arrow), a grader failure next to a graded trial (agda), an
// infrastructure error and a trial still running (astropy).
func CreateFinishedRun(t testing.TB, cl client.Client, ns, name string) []*evalv1.TaskTrial {
	t.Helper()
	run := MakeRun(ns, name).Tasks("arrow", "agda", "astropy").Create(t, cl)
	succeeded := func(task string, attempt int32, rewards map[string]string) *TrialWrapper {
		return MakeTrial(run, task, attempt).Phase(evalv1.TrialSucceeded).Rewards(rewards)
	}
	var trials []*evalv1.TaskTrial
	for _, w := range []*TrialWrapper{
		succeeded("arrow", 1, SweepRewards(10, 4, true)),
		succeeded("arrow", 2, SweepRewards(10, 6, true)),
		succeeded("arrow", 3, SweepRewards(10, 8, false)),
		succeeded("agda", 1, SweepRewards(45, 9, true)),
		MakeTrial(run, "agda", 2).Phase(evalv1.TrialFailed).Reason(reasons.GraderFailed, "the grader reported grader_failed").
			Rewards(map[string]string{reward.KeyReward: "0", reward.KeyGraderFailed: "1"}),
		MakeTrial(run, "astropy", 1).Phase(evalv1.TrialError).Reason(reasons.ImagePullFailed, "image reg/astropy-env:1 not found"),
		MakeTrial(run, "astropy", 2).Phase(evalv1.TrialAgentRunning),
	} {
		trials = append(trials, w.Create(t, cl))
	}
	return trials
}

// RewardJSON is the reward.json a verifier wrote for the numbers a trial status holds.
func RewardJSON(t testing.TB, rewards map[string]string) []byte {
	t.Helper()
	numbers := map[string]float64{}
	for k, v := range rewards {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		numbers[k] = f
	}
	data, err := json.Marshal(numbers)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// OnlyRun waits for the one SweepRun in ns and returns it.
func OnlyRun(t testing.TB, cl client.Client, ns string) *evalv1.SweepRun {
	t.Helper()
	list := &evalv1.SweepRunList{}
	WaitFor(t, "a SweepRun in "+ns, func() bool {
		return cl.List(context.Background(), list, client.InNamespace(ns)) == nil && len(list.Items) == 1
	})
	return &list.Items[0]
}

// Bundle writes the catalogue of TasksDir with `sweep tasks bundle` and returns its folder.
func Bundle(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "catalogue")
	if _, _, err := Execute(context.Background(), &tasks.BundleOptions{Registry: "reg.example/t", OutDir: out}, TasksDir()); err != nil {
		t.Fatal(err)
	}
	return out
}

// InstallCatalogue bundles TasksDir and creates its objects in ns, as kubectl apply -k
// would.
func InstallCatalogue(t testing.TB, cl client.Client, ns string) {
	t.Helper()
	rendered, err := catalogue.Render(Bundle(t))
	if err != nil {
		t.Fatal(err)
	}
	ApplyRendered(t, cl, ns, rendered)
}

// ApplyRendered creates every object of a rendered kustomization in ns.
func ApplyRendered(t testing.TB, cl client.Client, ns string, rendered []byte) {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		obj.SetNamespace(ns)
		if err := cl.Create(context.Background(), obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}
