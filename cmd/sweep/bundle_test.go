package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
)

func TestTasksImages(t *testing.T) {
	for _, tc := range []struct{ golden, format string }{{"tasks-images.txt", "table"}, {"tasks-images.json", "json"}} {
		out, _, err := runSweepSplit(t, "tasks", "images", "testdata/tasks", "--registry", "reg.example/t", "-o", tc.format)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, tc.golden, out)
	}
	_, _, err := runSweepSplit(t, "tasks", "images", "testdata/tasks")
	errorContains(t, err, "task demo: its agent image is built from the task directory, so it needs a registry: pass --registry")
}

// applyRendered creates every object of a rendered kustomization in ns.
func applyRendered(t *testing.T, cl client.Client, ns string, rendered []byte) {
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

func TestTasksBundle(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	out := filepath.Join(t.TempDir(), "catalogue")
	stdout, _, err := runSweepSplit(t, "tasks", "bundle", "testdata/tasks", "--registry", "reg.example/t", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, "wrote 2 tasks and 2 solutions to "+filepath.Join(out, "kustomization.yaml")) {
		t.Errorf("stdout = %q", stdout)
	}
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	ns := testNamespace(t, cl)
	applyRendered(t, cl, ns, rendered)

	// The controllers find the tasks as a SweepRun selects them.
	cms := &corev1.ConfigMapList{}
	if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil {
		t.Fatal(err)
	}
	run := &evalv1.SweepRun{}
	run.Name, run.Spec.Agent.Oracle = "oracle", &evalv1.OracleAgent{}
	tasks, missing := campaign.SelectTasks(evalv1.TaskSelection{Names: []string{"demo", "hello"}}, cms.Items, nil)
	if len(missing) > 0 || len(tasks) != 2 {
		t.Fatalf("selected %d tasks, missing %v", len(tasks), missing)
	}
	spec := campaign.TrialSpec(run, tasks[0], 1)
	images, _, err := runSweepSplit(t, "tasks", "images", "testdata/tasks", "--registry", "reg.example/t", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{spec.Task, spec.Images.Agent, spec.Images.Verifier, spec.Grader, spec.SolutionConfigMap, spec.InstructionConfigMap}
	want := []string{"demo", spec.Images.Agent, spec.Images.Verifier, "swesweep", "demo-solution", "demo"}
	if diff := cmp.Diff(want, got); diff != "" || !strings.Contains(images, `"image": "`+spec.Images.Agent+`"`) || spec.BugsTotal != 2 {
		t.Errorf("trial spec from the bundled task (-want +got):\n%s\nbugs %d, images %s", diff, spec.BugsTotal, images)
	}
	solution := &corev1.ConfigMap{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "demo-solution"}, solution); err != nil {
		t.Fatal(err)
	}
	if len(solution.Data) != 2 || solution.Labels[evalv1.LabelTask] != "" {
		t.Errorf("solution ConfigMap: keys %v, labels %v; want solve.sh and fix.patch and no task label", solution.Data, solution.Labels)
	}

	// kubectl apply -k works on it too, when envtest's binaries include kubectl.
	t.Run("kubectl apply -k", func(t *testing.T) {
		kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
		if _, err := os.Stat(kubectl); err != nil {
			t.Logf("no %s: kubectl apply -k not tried", kubectl)
			return
		}
		ns := testNamespace(t, cl)
		if b, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "apply", "-k", out, "-n", ns).CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply -k: %v\n%s", err, b)
		}
		if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil || len(cms.Items) != 2 {
			t.Errorf("after kubectl apply -k: %d task ConfigMaps, %v", len(cms.Items), err)
		}
	})
}

func TestTasksBundleErrors(t *testing.T) {
	_, _, err := runSweepSplit(t, "tasks", "bundle", "testdata/tasks", "--registry", "r")
	errorContains(t, err, "flag -o/--output-dir is required")
	_, _, err = runSweepSplit(t, "tasks", "bundle", "testdata/tasks", "-o", t.TempDir())
	errorContains(t, err, "needs a registry: pass --registry")
}
