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
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// TasksDir is the test task catalogue's source: Harbor task directories demo (two bugs, a
// solution patch, images built from the task) and hello (a test.sh task on a public image).
func TasksDir() string {
	return filepath.Join(RepoRoot(), "internal", "cli", "tasks", "testdata", "tasks")
}

// CreateRun creates a SweepRun of the nop agent over tasks.
func CreateRun(t testing.TB, cl client.Client, ns, name string, tasks ...string) *evalv1.SweepRun {
	t.Helper()
	run := &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: evalv1.SweepRunSpec{
			Tasks: evalv1.TaskSelection{Names: tasks},
			Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}},
			// The Go types send zeros, which the CRD's defaults do not replace.
			Attempts: 1, Parallelism: 1,
		},
	}
	if err := cl.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// Outcome is the status a test gives a trial, playing the trial controller.
type Outcome struct {
	Task    string
	Attempt int32
	Phase   evalv1.TrialPhase
	Reason  string
	Message string
	Rewards map[string]string
}

// CreateTrial creates a campaign's trial and writes its status.
func CreateTrial(t testing.TB, cl client.Client, run *evalv1.SweepRun, o Outcome) *evalv1.TaskTrial {
	t.Helper()
	ctx := context.Background()
	tr := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, o.Task, o.Attempt),
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: o.Task}},
		Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: o.Task, Attempt: o.Attempt,
			Images: evalv1.TrialImages{Agent: "reg/" + o.Task + "-env:1", Verifier: "reg/" + o.Task + "-verifier:1"},
			Agent:  run.Spec.Agent},
	}
	if err := cl.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase, tr.Status.Reason, tr.Status.Message, tr.Status.Rewards = o.Phase, o.Reason, o.Message, o.Rewards
	if err := cl.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// SweepRewards are the rewards a SWE-sweep verifier reports, as the trial status holds them.
func SweepRewards(bugs, resolved int, visibleOK bool) map[string]string {
	r := map[string]string{"n_subtasks": strconv.Itoa(bugs), "n_resolved": strconv.Itoa(resolved), "visible_ok": "1", "grader_failed": "0"}
	r["reward"] = scoring.Format(float64(resolved) / float64(bugs))
	if !visibleOK {
		r["visible_ok"], r["reward"] = "0", "0"
	}
	return r
}

// CreateFinishedRun creates a campaign whose trials cover every branch of the score: several
// attempts with a regression (arrow), a grader failure next to a graded trial (agda), an
// infrastructure error and a trial still running (astropy).
func CreateFinishedRun(t testing.TB, cl client.Client, ns, name string) []*evalv1.TaskTrial {
	t.Helper()
	run := CreateRun(t, cl, ns, name, "arrow", "agda", "astropy")
	var trials []*evalv1.TaskTrial
	for _, o := range []Outcome{
		{Task: "arrow", Attempt: 1, Phase: evalv1.TrialSucceeded, Rewards: SweepRewards(10, 4, true)},
		{Task: "arrow", Attempt: 2, Phase: evalv1.TrialSucceeded, Rewards: SweepRewards(10, 6, true)},
		{Task: "arrow", Attempt: 3, Phase: evalv1.TrialSucceeded, Rewards: SweepRewards(10, 8, false)},
		{Task: "agda", Attempt: 1, Phase: evalv1.TrialSucceeded, Rewards: SweepRewards(45, 9, true)},
		{Task: "agda", Attempt: 2, Phase: evalv1.TrialFailed, Reason: "GraderFailed", Message: "the grader reported grader_failed",
			Rewards: map[string]string{"reward": "0", "grader_failed": "1"}},
		{Task: "astropy", Attempt: 1, Phase: evalv1.TrialError, Reason: "ImagePullFailed", Message: "image reg/astropy-env:1 not found"},
		{Task: "astropy", Attempt: 2, Phase: evalv1.TrialAgentRunning},
	} {
		trials = append(trials, CreateTrial(t, cl, run, o))
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

// FinishWithEval plays the trial controller: it stores eval.json, then finishes the trial, in
// the controller's order.
func FinishWithEval(t testing.TB, cl client.Client, run *evalv1.SweepRun, o Outcome, evalJSON string) {
	t.Helper()
	if evalJSON != "" {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: podbuild.ResultsSecretName(campaign.TrialName(run.Name, o.Task, o.Attempt))},
			Data: map[string][]byte{"eval.json": []byte(evalJSON), "reward.json": RewardJSON(t, o.Rewards)}}
		if err := cl.Create(context.Background(), secret); err != nil {
			t.Fatal(err)
		}
	}
	CreateTrial(t, cl, run, o)
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
