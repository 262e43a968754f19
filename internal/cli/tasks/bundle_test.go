package tasks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestTasksImages(t *testing.T) {
	for _, tc := range []struct{ golden, format string }{{"tasks-images.txt", "table"}, {"tasks-images.json", "json"}} {
		out, _, err := clitest.Execute(context.Background(), &tasks.ImagesOptions{Registry: "reg.example/t", Format: tc.format}, "testdata/tasks")
		if err != nil {
			t.Fatal(err)
		}
		clitest.Golden(t, tc.golden, out)
	}
	_, _, err := clitest.Execute(context.Background(), &tasks.ImagesOptions{Format: clioptions.OutputTable}, "testdata/tasks")
	sweeptest.ErrorContains(t, err, "task demo: its agent image is built from the task directory, so it needs a registry: pass --registry")
}

func TestTasksBundle(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	out := filepath.Join(t.TempDir(), "catalogue")
	stdout, _, err := clitest.Execute(context.Background(), &tasks.BundleOptions{Registry: "reg.example/t", OutDir: out}, "testdata/tasks")
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
	ns := srv.Namespace(t)
	clitest.ApplyRendered(t, cl, ns, rendered)

	// The controllers find the tasks as a SweepRun selects them.
	cms := &corev1.ConfigMapList{}
	if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil {
		t.Fatal(err)
	}
	run := &evalv1.SweepRun{}
	run.Name, run.Spec.Agent.Oracle = "oracle", &evalv1.OracleAgent{}
	selected, missing := campaign.SelectTasks(evalv1.TaskSelection{Names: []string{"demo", "hello"}}, cms.Items, nil)
	if len(missing) > 0 || len(selected) != 2 {
		t.Fatalf("selected %d tasks, missing %v", len(selected), missing)
	}
	spec := campaign.TrialSpec(run, selected[0], 1)
	images, _, err := clitest.Execute(context.Background(), &tasks.ImagesOptions{Registry: "reg.example/t", Format: clioptions.OutputJSON}, "testdata/tasks")
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
		ns := srv.Namespace(t)
		if b, err := exec.Command(kubectl, "--kubeconfig", srv.Kubeconfig, "apply", "-k", out, "-n", ns).CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply -k: %v\n%s", err, b)
		}
		if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil || len(cms.Items) != 2 {
			t.Errorf("after kubectl apply -k: %d task ConfigMaps, %v", len(cms.Items), err)
		}
	})
}

func TestTasksBundleErrors(t *testing.T) {
	_, _, err := clitest.Execute(context.Background(), &tasks.BundleOptions{Registry: "r"}, "testdata/tasks")
	sweeptest.ErrorContains(t, err, "flag -o/--output-dir is required")
	_, _, err = clitest.Execute(context.Background(), &tasks.BundleOptions{OutDir: t.TempDir()}, "testdata/tasks")
	sweeptest.ErrorContains(t, err, "needs a registry: pass --registry")
}
