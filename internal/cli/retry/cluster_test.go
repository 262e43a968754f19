package retry

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// finish gives the campaign the status its controller writes at the end.
func finish(t *testing.T, cl client.Client, ns, name string) {
	t.Helper()
	run := &evalv1.SweepRun{}
	clitest.Must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, run))
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

// clitest's finished run has a grader failure (agda 2) and an image pull failure (astropy 1)
// among measured trials.
func TestRetryCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	clitest.CreateFinishedRun(t, srv.Client, ns, "run1")

	_, _, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "run1")
	sweeptest.ErrorContains(t, err, "sweeprun run1 in namespace "+ns+" is not finished (phase <none>", "sweep watch run1 -n "+ns)
	if _, requested := sweepRun(t, srv.Client, ns, "run1").Annotations[evalv1.AnnotationRetry]; requested {
		t.Error("a refused retry wrote the annotation")
	}
	_, _, err = clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "no-such-run")
	sweeptest.ErrorContains(t, err, `sweeprun "no-such-run" not found in namespace "`+ns+`"`)

	finish(t, srv.Client, ns, "run1")
	out, _, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns), Reasons: []string{reasons.RewardOutOfBounds}}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweeprun run1: no finished trial ended Error or Failed with reason RewardOutOfBounds: nothing to rerun\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if _, requested := sweepRun(t, srv.Client, ns, "run1").Annotations[evalv1.AnnotationRetry]; requested {
		t.Error("a retry with nothing to rerun wrote the annotation")
	}

	out, _, err = clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	want := "sweeprun.eval.sweep.dev/run1 retry requested: 2 trials will rerun as new trials of the same attempts (reasons ImagePullFailed, PodEvicted, NodeLost, Preempted, EnvironmentStartTimeout, CollectorLost, ArtifactsLost, VerifierTimeout, GraderFailed, RewardMissing)\n" +
		"  run1-agda-2 (task agda, attempt 2): Failed GraderFailed\n" +
		"  run1-astropy-1 (task astropy, attempt 1): Error ImagePullFailed\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	run := sweepRun(t, srv.Client, ns, "run1")
	first := run.Annotations[evalv1.AnnotationRetry]
	if _, named := run.Annotations[evalv1.AnnotationRetryReasons]; first == "" || named {
		t.Errorf("annotations = %v: want a retry token and no reasons (the default)", run.Annotations)
	}
	if !slices.ContainsFunc(run.ManagedFields, func(f metav1.ManagedFieldsEntry) bool { return f.Manager == FieldManager }) {
		t.Errorf("no managed fields of %s: %+v", FieldManager, run.ManagedFields)
	}

	// --watch waits for the controller to handle the request, then follows to the end.
	stdout, _, done := clitest.Start(ctx, &Options{Cluster: srv.Cluster(ns), Reasons: []string{reasons.GraderFailed}, Watch: true}, "run1")
	clitest.WaitFor(t, "a second retry token", func() bool {
		a := sweepRun(t, srv.Client, ns, "run1").Annotations
		return a[evalv1.AnnotationRetry] != first && a[evalv1.AnnotationRetryReasons] == reasons.GraderFailed
	})
	time.Sleep(5 * clitest.PollInterval)
	select {
	case err := <-done:
		t.Fatalf("--watch returned before the request was handled: %v\n%s", err, stdout)
	default:
	}
	run = sweepRun(t, srv.Client, ns, "run1")
	run.Status.Retry = &evalv1.RetryStatus{Token: run.Annotations[evalv1.AnnotationRetry], Trials: 1}
	clitest.Must(t, srv.Client.Status().Update(ctx, run))
	if err := clitest.Wait(t, "sweep retry --watch", done); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "1 trials will rerun") || !strings.Contains(stdout.String(), "score") {
		t.Errorf("stdout of --watch wants the request and the report:\n%s", stdout)
	}
}

func TestRetryValidate(t *testing.T) {
	err := (&Options{Reasons: []string{reasons.PodEvicted, "Flaky"}}).Validate()
	sweeptest.ErrorContains(t, err, "flag --reason: Flaky: not a trial reason", "PodEvicted")
	if err := (&Options{Reasons: []string{reasons.RewardOutOfBounds}}).Validate(); err != nil {
		t.Errorf("a deterministic reason named explicitly is refused: %v", err)
	}
}

// After a retry the verbs that read a campaign (info, compare, export, watch: all through
// campaigns.Trials) see each attempt's final run, not the trial it superseded.
func TestVerbsReadTheFinalRun(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	trials := clitest.CreateFinishedRun(t, srv.Client, ns, "run1")
	run := sweepRun(t, srv.Client, ns, "run1")
	var old *evalv1.TaskTrial
	for _, tr := range trials {
		if tr.Spec.Task == "astropy" && tr.Spec.Attempt == 1 {
			old = tr
		}
	}
	rerun := campaign.NextRunName(old)
	old.Labels[evalv1.LabelSupersededBy] = rerun
	clitest.Must(t, srv.Client.Update(ctx, old))
	w := clitest.MakeTrial(run, "astropy", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 1, true))
	w.Name, w.Labels[evalv1.LabelRerun] = rerun, "1"
	w.Create(t, srv.Client)

	read, err := info.CollectTrials(ctx, srv.Cluster(ns), io.Discard, []string{"run1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, r := range read {
		sources = append(sources, r.Source)
	}
	if !slices.Contains(sources, "tasktrial "+rerun) || slices.Contains(sources, "tasktrial "+old.Name) {
		t.Errorf("sources = %v: want the rerun %s and not the superseded %s", sources, rerun, old.Name)
	}
}
