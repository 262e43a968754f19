package regrade

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// finish gives the campaign the status its controller writes at the end.
func finish(t *testing.T, cl client.Client, ns, name string) {
	t.Helper()
	run := sweepRun(t, cl, ns, name)
	run.Status.Phase, run.Status.Progress = evalv1.SweepRunSucceeded, "7/7"
	run.Status.CompletionTime = &metav1.Time{Time: time.Now()}
	clitest.Must(t, cl.Status().Update(context.Background(), run))
}

func sweepRun(t *testing.T, cl client.Client, ns, name string) *evalv1.SweepRun {
	t.Helper()
	run := &evalv1.SweepRun{}
	clitest.Must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, run))
	return run
}

// storeArtifacts gives the finished trials of tasks the patch their agent stage stored.
func storeArtifacts(t *testing.T, cl client.Client, trials []*evalv1.TaskTrial, tasks ...string) {
	t.Helper()
	for _, tr := range trials {
		if slices.Contains(tasks, tr.Spec.Task) && tr.Status.Phase.Finished() {
			tr.Status.Patch = &evalv1.PatchStatus{SHA256: "ab", Bytes: 10, SecretName: tr.Name + "-artifacts"}
			clitest.Must(t, cl.Status().Update(context.Background(), tr))
		}
	}
}

// clitest's finished run: arrow 1-3 and agda 1 graded, agda 2 a grader failure, astropy 1 an
// image pull failure (no artifacts), astropy 2 unfinished.
func TestRegradeCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	trials := clitest.CreateFinishedRun(t, srv.Client, ns, "run1")

	_, _, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "run1")
	sweeptest.ErrorContains(t, err, "sweeprun run1 in namespace "+ns+" is not finished (phase <none>", "sweep regrade grades the stored patches", "sweep watch run1 -n "+ns)
	if _, requested := sweepRun(t, srv.Client, ns, "run1").Annotations[evalv1.AnnotationRegrade]; requested {
		t.Error("a refused regrade wrote the annotation")
	}
	_, _, err = clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "no-such-run")
	sweeptest.ErrorContains(t, err, `sweeprun "no-such-run" not found in namespace "`+ns+`"`)

	finish(t, srv.Client, ns, "run1")
	out, _, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweeprun run1: no final trial has stored artifacts (7 without: their agent did not finish): nothing to regrade\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if _, requested := sweepRun(t, srv.Client, ns, "run1").Annotations[evalv1.AnnotationRegrade]; requested {
		t.Error("a regrade with nothing to regrade wrote the annotation")
	}

	storeArtifacts(t, srv.Client, trials, "arrow", "agda")
	out, _, err = clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	want := "sweeprun.eval.sweep.dev/run1 regrade requested: 5 trials' stored artifacts will be graded again with the current verifier images, without running the agents; 2 final trials without artifacts are skipped\n" +
		"  run1-agda-1 (task agda, attempt 1): Succeeded, score <none>\n" +
		"  run1-agda-2 (task agda, attempt 2): Failed GraderFailed, score <none>\n" +
		"  run1-arrow-1 (task arrow, attempt 1): Succeeded, score <none>\n" +
		"  run1-arrow-2 (task arrow, attempt 2): Succeeded, score <none>\n" +
		"  run1-arrow-3 (task arrow, attempt 3): Succeeded, score <none>\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	run := sweepRun(t, srv.Client, ns, "run1")
	first := run.Annotations[evalv1.AnnotationRegrade]
	if first == "" {
		t.Errorf("annotations = %v: want a regrade token", run.Annotations)
	}
	if !slices.ContainsFunc(run.ManagedFields, func(f metav1.ManagedFieldsEntry) bool { return f.Manager == FieldManager }) {
		t.Errorf("no managed fields of %s: %+v", FieldManager, run.ManagedFields)
	}

	// --watch waits for the controller to handle the request, then follows to the end.
	stdout, _, done := clitest.Start(ctx, &Options{Cluster: srv.Cluster(ns), Watch: true}, "run1")
	clitest.WaitFor(t, "a second regrade token", func() bool {
		return sweepRun(t, srv.Client, ns, "run1").Annotations[evalv1.AnnotationRegrade] != first
	})
	time.Sleep(5 * clitest.PollInterval)
	select {
	case err := <-done:
		t.Fatalf("--watch returned before the request was handled: %v\n%s", err, stdout)
	default:
	}
	run = sweepRun(t, srv.Client, ns, "run1")
	run.Status.Regrade = &evalv1.RetryStatus{Token: run.Annotations[evalv1.AnnotationRegrade], Trials: 5}
	clitest.Must(t, srv.Client.Status().Update(ctx, run))
	if err := clitest.Wait(t, "sweep regrade --watch", done); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "5 trials' stored artifacts") || !strings.Contains(stdout.String(), "score") {
		t.Errorf("stdout of --watch wants the request and the report:\n%s", stdout)
	}
}
